import type {
  ChatConfig,
  ChatConfigChanges,
  ChatMethod,
  ChatParams,
  ChatResult,
  ContentBlock,
  ResolvedAttachment,
  SessionRef,
} from "../../core/protocol";
import { fileAttachment, withAttachments } from "../../core/runtime/mentions";
import { searchOneSession } from "../search/session-search";
import type { ChatController } from "./controller";
import { ChatError } from "./errors";
import type { HostActions } from "./host-actions";
import { pagesThrough } from "./pages-through";

/** A handler per chat RPC method (core/protocol/rpc.ts). */
export type ChatHandlers = { [M in ChatMethod]: (params: ChatParams<M>) => Promise<ChatResult<M>> };

/**
 * The chat methods that need nothing of the view (what it shows, what it was told): each runs on the controller or
 * the editor's actions. The view's server (rpc-server.ts) adds the ones that change what the view shows.
 */
export function viewlessHandlers(c: ChatController, actions: HostActions) {
  return {
    listSessions: async () => c.list(),
    loadEarlier: async ({ ref, beforeSeq }) => c.loadEarlier(ref, beforeSeq),
    loadThrough: async ({ ref, beforeSeq, seq }) => pagesThrough(c.folder(ref.folderKey), ref, beforeSeq, seq),
    searchSession: async ({ ref, query }) => searchOneSession(c.folder(ref.folderKey).runtime, ref, query),
    prompt: async ({ ref, text, attachments }) => c.prompt(ref, await messageInput(c, actions, ref, text, attachments)),
    cancel: async ({ ref }) => (c.cancel(ref), {}),
    retry: async ({ ref, turnEnd }) => (await c.retry(ref, turnEnd), {}),
    // Only a Downcity key is searched for; anything else (an environment variable) opens Downcity's settings.
    openSettings: async ({ setting }) => (
      await actions.runCommand(
        "workbench.action.openSettings",
        setting && /^downcity\.[\w.]+$/.test(setting) ? setting : "downcity",
      ),
      {}
    ),
    approve: async ({ ref, toolCallId, decision }) => ({ resolved: c.approve(ref, toolCallId, decision) }),
    rename: async ({ ref, title }) => (await c.rename(ref, title), {}),
    exportSession: async ({ ref }) => (await actions.exportSession(ref), {}),
    runCommand: async ({ command }) => (await actions.runCommand(command), {}),
    searchFiles: async ({ folderKey, query }) => actions.searchFiles(c.folder(folderKey), query),
    searchMentions: async ({ folderKey, kind, query }) =>
      actions.searchMentions(c.folderOrFirst(folderKey), kind, query),
    resolveMention: async ({ folderKey, mention }) => actions.resolveMention(c.folderOrFirst(folderKey), mention),
    sessionRules: async ({ ref }) =>
      c.folder(ref.folderKey).runtime.rules({ agentId: ref.agentId, sessionId: ref.sessionId }),
    openRulesFile: async ({ ref, path }) => {
      // Only a file the session's rules list names: the view cannot open arbitrary paths through this.
      const { files } = await c.folder(ref.folderKey).runtime.rules({ agentId: ref.agentId, sessionId: ref.sessionId });
      if (!files.some((f) => f.path === path && f.state !== "refused"))
        throw new ChatError("not-found", `${path} is not a rules file of this session`);
      await actions.openLink(c.folder(ref.folderKey), path);
      return {};
    },
    openLink: async ({ folderKey, href }) => ({ opened: await actions.openLink(c.folder(folderKey), href) }),
    undoEdit: async ({ ref, toolCallId }) => {
      await c.writable(ref);
      const undone = await actions.undoEdit(ref, toolCallId);
      await c.logUndo(ref, toolCallId, undone.path);
      return undone;
    },
    copy: async ({ text }) => (await actions.copy(text), {}),
    insertAtCursor: async ({ text }) => ({ inserted: await actions.insertAtCursor(text) }),
    warm: async () => (c.warm(), {}),
    // The message itself is the answer (views.ts counts any message as the document speaking).
    alive: async () => ({}),
  } satisfies Partial<ChatHandlers>;
}

/** The user message's content: the text, then each attachment (a path is read now; a mention was resolved when picked). */
async function messageInput(
  c: ChatController,
  actions: HostActions,
  ref: SessionRef,
  text: string,
  attachments: (string | ResolvedAttachment)[] | undefined,
): Promise<string | ContentBlock[]> {
  if (!attachments?.length) return text;
  const folder = c.folder(ref.folderKey);
  const resolved: ResolvedAttachment[] = [];
  for (const a of attachments)
    resolved.push(typeof a === "string" ? fileAttachment(a, await actions.readAttachment(folder, a)) : a);
  return withAttachments(text, resolved);
}

/** The config fields that differ from what a view was last told (a config change sends only these). */
export function configChanges(before: ChatConfig, config: ChatConfig): ChatConfigChanges {
  const changes: ChatConfigChanges = {};
  if (before.providerConfigured !== config.providerConfigured) changes.providerConfigured = config.providerConfigured;
  if (!sameJson(before.models, config.models)) changes.models = config.models;
  if (!sameJson(before.agents, config.agents)) changes.agents = config.agents;
  if (before.restricted !== config.restricted) changes.restricted = config.restricted ?? null;
  return changes;
}

export const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
