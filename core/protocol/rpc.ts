import { z } from "zod";
import { AgentEvent } from "./agent-events";
import { ContentBlock } from "./content";
import { SessionEvent } from "./events";
import { ConnectParams, ConnectResult, ListModelsParams, ListModelsResult } from "./connect";
import { RevealTarget, SessionSearchHit } from "./chat-search";
import { ApprovalDecision } from "./tool-details";
import { Mention, ResolvedAttachment } from "./mentions";
import { SessionRules } from "./rules";
import { SessionRef } from "./refs";

/**
 * The one typed RPC between the chat host and its webview (DESIGN §9). The webview sends
 * requests `{ kind: "request", id, method, params }` and gets `{ kind: "response", id,
 * result | error }`; the host also pushes `{ kind: "event", event }`. Both sides parse
 * every message with these schemas: the host before acting, the webview before
 * rendering (a malformed event is dropped).
 */

const Id = z.string().min(1).max(200);

export const ModelChoice = z.object({
  provider: z.string().min(1).max(200),
  model: z.string().min(1).max(500),
  contextWindow: z.number().int().positive().optional(),
});
export type ModelChoice = z.infer<typeof ModelChoice>;

/** One page of history, as the store returns it: the Active page first, then one segment per page. */
export const ChatPage = z.object({
  events: z.array(SessionEvent),
  firstSeq: z.number().int().nonnegative(),
  lastSeq: z.number().int().nonnegative(),
  summary: z.string().optional(),
  hasOlder: z.boolean(),
});
export type ChatPage = z.infer<typeof ChatPage>;

/** A member of the AgentEvent union by position (typed), checked by name so a reorder fails loudly. */
function member<I extends number>(index: I, type: string): (typeof AgentEvent.options)[I] {
  const schema = AgentEvent.options[index];
  if (schema?.shape.type.value !== type) throw new Error(`AgentEvent.options[${index}] is not "${type}"`);
  return schema;
}
const ApprovalRequested = member(8, "approval-requested");
const UsageEvent = member(10, "usage");

/** Everything a view needs to show one session: sent on open / switch, never again in full. */
export const ChatSnapshot = z.object({
  ref: SessionRef,
  folderName: z.string(),
  title: z.string().optional(),
  /** Why input is disabled (open in another window, damaged, archived, Restricted Mode). */
  readOnly: z.string().optional(),
  /** Repair actions taken when the session was opened. */
  repairs: z.array(z.string()).optional(),
  running: z.boolean(),
  page: ChatPage,
  draft: z.object({ draftId: z.string(), blocks: z.array(ContentBlock) }).optional(),
  pendingApprovals: z.array(ApprovalRequested),
  usage: UsageEvent.optional(),
  model: ModelChoice.optional(),
  /** Scroll to this message (paging back to it) and highlight it: a search result was opened. Not saved with the view's state. */
  reveal: RevealTarget.optional(),
});
export type ChatSnapshot = z.infer<typeof ChatSnapshot>;

/** Answer to a catch-up after the view was hidden or reloaded. */
export const CatchUp = z.discriminatedUnion("kind", [
  /** Events after `afterSeq` plus the live state; the view applies them on what it restored. */
  z.object({
    kind: z.literal("delta"),
    events: z.array(SessionEvent),
    running: z.boolean(),
    draft: ChatSnapshot.shape.draft,
    pendingApprovals: ChatSnapshot.shape.pendingApprovals,
    usage: ChatSnapshot.shape.usage,
    title: z.string().optional(),
    readOnly: z.string().optional(),
  }),
  /** Too far behind (or the session changed under it): start over from this snapshot. */
  z.object({ kind: z.literal("reset"), snapshot: ChatSnapshot }),
]);
export type CatchUp = z.infer<typeof CatchUp>;

export const ChatConfig = z.object({
  /** False when no provider profile is set: the view shows how to configure one. */
  providerConfigured: z.boolean(),
  models: z.array(ModelChoice),
  agents: z.array(z.object({ id: Id, name: z.string() })),
  restricted: z.string().optional(),
});
export type ChatConfig = z.infer<typeof ChatConfig>;

/** What changed in a view's config since it was last told: only those fields; `restricted: null` = no longer restricted. */
export const ChatConfigChanges = ChatConfig.partial().extend({ restricted: z.string().nullable().optional() });
export type ChatConfigChanges = z.infer<typeof ChatConfigChanges>;

export const ChatSessionItem = z.object({
  ref: SessionRef,
  title: z.string().optional(),
  updatedAt: z.number(),
  running: z.boolean().optional(),
});
export type ChatSessionItem = z.infer<typeof ChatSessionItem>;

const Text = z.string().max(1_000_000);
/** A conversation the sidebar handed to an editor tab: what its placeholder names. */
export const MovedChat = z.object({ ref: SessionRef, title: z.string().max(500).optional() });
export type MovedChat = z.infer<typeof MovedChat>;
const Empty = z.object({}).strict();

/** Method name → params and result schemas. */
export const ChatMethods = {
  /** First message of a view: the config and the session to show (the restored one if it still exists). */
  hello: {
    params: z.object({ restore: SessionRef.optional() }).strict(),
    /**
     * `connect`: the connect form was asked for (Select Model's "Add a model…") before the view loaded.
     * `moved`: the sidebar's conversation is open in an editor tab (Open Chat in Editor), so it shows the placeholder.
     */
    result: z.object({
      config: ChatConfig,
      snapshot: ChatSnapshot.optional(),
      connect: z.boolean().optional(),
      moved: MovedChat.optional(),
    }),
  },
  catchUp: {
    params: z.object({ ref: SessionRef, afterSeq: z.number().int().nonnegative() }).strict(),
    result: CatchUp,
  },
  switchSession: { params: z.object({ ref: SessionRef }).strict(), result: ChatSnapshot },
  newSession: {
    params: z.object({ folderKey: z.string().min(1).optional(), agentId: Id.optional() }).strict(),
    result: ChatSnapshot,
  },
  listSessions: { params: Empty, result: z.array(ChatSessionItem) },
  loadEarlier: {
    params: z.object({ ref: SessionRef, beforeSeq: z.number().int().positive() }).strict(),
    result: ChatPage,
  },
  /** The pages (one segment each, newest first) from `beforeSeq` back to the one holding `seq`: a reveal's paging in one round trip. */
  loadThrough: {
    params: z
      .object({ ref: SessionRef, beforeSeq: z.number().int().positive(), seq: z.number().int().positive() })
      .strict(),
    result: z.array(ChatPage),
  },
  /** The find bar's "search this whole session": the core query over every segment of one session. */
  searchSession: {
    params: z.object({ ref: SessionRef, query: z.string().min(1).max(500) }).strict(),
    result: z.object({ hits: z.array(SessionSearchHit), more: z.boolean() }),
  },
  /** Starts a turn, or steers the running one. Resolves once accepted; the run streams as events. */
  prompt: {
    /** An attachment is a workspace path (read by the host at send) or a mention resolved when it was picked. */
    params: z
      .object({
        ref: SessionRef,
        text: Text,
        attachments: z
          .array(z.union([z.string().min(1).max(4096), ResolvedAttachment]))
          .max(50)
          .optional(),
      })
      .strict(),
    result: z.object({ steered: z.boolean() }),
  },
  cancel: { params: z.object({ ref: SessionRef }).strict(), result: Empty },
  /** Runs the failed last turn again (its `turn/end` seq), without a new user message. */
  retry: { params: z.object({ ref: SessionRef, turnEnd: z.number().int().positive() }).strict(), result: Empty },
  /** Opens the Settings editor at a Downcity setting (a failed turn's "Open Settings"). */
  openSettings: { params: z.object({ setting: z.string().max(200).optional() }).strict(), result: Empty },
  approve: {
    params: z.object({ ref: SessionRef, toolCallId: Id, decision: ApprovalDecision }).strict(),
    result: z.object({ resolved: z.boolean() }),
  },
  rename: { params: z.object({ ref: SessionRef, title: z.string().trim().min(1).max(500) }).strict(), result: Empty },
  fork: {
    params: z.object({ ref: SessionRef, atSeq: z.number().int().positive().optional() }).strict(),
    result: ChatSnapshot,
  },
  /** "Restore to Here" / "Edit and Resend" on a message: the host's preview, then the restore; the fork the conversation continues in, if any. */
  restoreToMessage: {
    params: z.object({ ref: SessionRef, seq: z.number().int().positive(), resend: z.boolean().optional() }).strict(),
    result: z.object({ restored: z.boolean(), snapshot: ChatSnapshot.optional() }),
  },
  exportSession: { params: z.object({ ref: SessionRef }).strict(), result: Empty },
  selectModel: { params: z.object({ ref: SessionRef, model: ModelChoice }).strict(), result: Empty },
  /** Runs one of the few commands the view offers (empty state, header). */
  runCommand: {
    params: z
      .object({ command: z.enum(["downcity.setApiKey", "downcity.selectModel", "downcity.compactSession"]) })
      .strict(),
    result: Empty,
  },
  searchFiles: {
    params: z.object({ folderKey: z.string().min(1), query: z.string().max(500) }).strict(),
    result: z.array(z.string()),
  },
  /** The composer's @-menu: workspace files (fuzzy) or folders matching a query (no folder: the first one). */
  searchMentions: {
    params: z
      .object({ folderKey: z.string().min(1).optional(), kind: z.enum(["file", "folder"]), query: z.string().max(500) })
      .strict(),
    result: z.array(z.string()),
  },
  /** A picked (or dropped) mention as the text that will be sent, so the chip and the meter show it first. */
  resolveMention: {
    params: z.object({ folderKey: z.string().min(1).optional(), mention: Mention }).strict(),
    result: ResolvedAttachment,
  },
  /** The rules files the session's next request uses (its chips), and opening one in the editor. */
  sessionRules: { params: z.object({ ref: SessionRef }).strict(), result: SessionRules },
  openRulesFile: { params: z.object({ ref: SessionRef, path: z.string().min(1).max(4096) }).strict(), result: Empty },
  /** A link in model output: confirmed and opened externally, or a workspace path opened in the editor. */
  openLink: {
    params: z.object({ folderKey: z.string().min(1), href: z.string().min(1).max(8192) }).strict(),
    result: z.object({ opened: z.boolean() }),
  },
  openDiff: { params: z.object({ ref: SessionRef, toolCallId: Id }).strict(), result: Empty },
  /** Undoes an applied edit (one step); logged as `tool/undo`. Fails, changing nothing, when the file changed since. */
  undoEdit: { params: z.object({ ref: SessionRef, toolCallId: Id }).strict(), result: z.object({ path: z.string() }) },
  copy: { params: z.object({ text: Text }).strict(), result: Empty },
  insertAtCursor: { params: z.object({ text: Text }).strict(), result: z.object({ inserted: z.boolean() }) },
  /** The connect form (connect.ts): a server's models, and a tested, saved profile. */
  listModels: { params: ListModelsParams, result: ListModelsResult },
  connect: { params: ConnectParams, result: ConnectResult },
  /** The user started typing a message: the host loads the model's SDK now, so the first message does not wait for it. */
  warm: { params: Empty, result: Empty },
  /** The moved-chat placeholder's "Bring Chat Back": the editor tab showing `ref` closes and the sidebar shows it again. */
  bringBack: { params: z.object({ ref: SessionRef }).strict(), result: Empty },
  /** The answer to a `ping`: this document is loaded and running (the hello watchdog asks before it replaces one). */
  alive: { params: Empty, result: Empty },
} as const;
export type ChatMethod = keyof typeof ChatMethods;
export type ChatParams<M extends ChatMethod> = z.infer<(typeof ChatMethods)[M]["params"]>;
export type ChatResult<M extends ChatMethod> = z.infer<(typeof ChatMethods)[M]["result"]>;

const methodNames = Object.keys(ChatMethods) as [ChatMethod, ...ChatMethod[]];

/** The envelope only; params are checked per method by `parseChatRequest`. */
export const ChatRequestEnvelope = z.object({
  kind: z.literal("request"),
  id: z.number().int().nonnegative(),
  method: z.enum(methodNames),
  params: z.unknown(),
});

export type ChatRequest = {
  [M in ChatMethod]: { kind: "request"; id: number; method: M; params: ChatParams<M> };
}[ChatMethod];

export const RpcError = z.object({
  message: z.string(),
  code: z.enum(["invalid", "not-found", "read-only", "failed"]),
});
export type RpcError = z.infer<typeof RpcError>;

export const ChatResponse = z.union([
  z.object({ kind: z.literal("response"), id: z.number().int().nonnegative(), result: z.unknown() }),
  z.object({ kind: z.literal("response"), id: z.number().int().nonnegative().nullable(), error: RpcError }),
]);
export type ChatResponse = z.infer<typeof ChatResponse>;

/** Host → webview pushes. Agent events are forwarded exactly as the runtime emits them. */
export const ChatHostEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("session-switched"), snapshot: ChatSnapshot }),
  z.object({ type: z.literal("agent"), folderKey: z.string(), event: AgentEvent }),
  z.object({ type: z.literal("sessions-changed") }),
  /** The shown session is gone (deleted here, in another window, or by the CLI): the view closes it and says so. */
  z.object({ type: z.literal("session-closed"), ref: SessionRef, message: z.string() }),
  /** Provider, model, agent or trust settings changed: only the fields that did (`ChatConfigChanges`). */
  z.object({ type: z.literal("config"), changes: ChatConfigChanges }),
  /** The model the shown session's next run uses changed from outside (settings, status bar, Select Model). */
  z.object({ type: z.literal("model"), ref: SessionRef, model: ModelChoice.optional() }),
  /** Show the connect form (Select Model's "Add a model…", the status bar with no model). */
  z.object({ type: z.literal("connect") }),
  /** "Add to Chat" (Explorer, editor): attachments for the composer of the shown session. */
  z.object({ type: z.literal("attach"), attachments: z.array(ResolvedAttachment).max(50) }),
  /** A rules file of this folder changed on disk: the view asks for the shown session's rules again. */
  z.object({ type: z.literal("rules-changed"), folderKey: z.string() }),
  /** The shown conversation moved to an editor tab (Open Chat in Editor): the sidebar shows a placeholder instead. */
  z.object({ type: z.literal("session-moved"), moved: MovedChat }),
  /** Is this document running? It answers with `alive` (extension/chat/hello-watchdog.ts asks before replacing it). */
  z.object({ type: z.literal("ping") }),
]);
export type ChatHostEvent = z.infer<typeof ChatHostEvent>;

export const ChatHostMessage = z.union([ChatResponse, z.object({ kind: z.literal("event"), event: ChatHostEvent })]);
export type ChatHostMessage = z.infer<typeof ChatHostMessage>;

/** Validates a webview message: the typed request, or an error naming what is wrong (and the id when readable). */
export function parseChatRequest(
  raw: unknown,
): { ok: true; request: ChatRequest } | { ok: false; id: number | null; message: string } {
  const envelope = ChatRequestEnvelope.safeParse(raw);
  const rawId = (raw as { id?: unknown } | null)?.id;
  const id = typeof rawId === "number" && Number.isInteger(rawId) && rawId >= 0 ? rawId : null;
  if (!envelope.success) return { ok: false, id, message: `malformed request: ${z.prettifyError(envelope.error)}` };
  const { method } = envelope.data;
  const params = ChatMethods[method].params.safeParse(envelope.data.params ?? {});
  if (!params.success)
    return { ok: false, id, message: `invalid params for ${method}: ${z.prettifyError(params.error)}` };
  return { ok: true, request: { kind: "request", id: envelope.data.id, method, params: params.data } as ChatRequest };
}
