import type { ChatHostMessage } from "../../../core/protocol";
import type { WorkspaceRuntimeApi } from "../../../core/runtime";
import { ChatController } from "../../../extension/chat/controller";
import type { HostActions } from "../../../extension/chat/host-actions";
import { ChatRpcServer } from "../../../extension/chat/rpc-server";
import type { ChatFolders } from "../../../extension/chat/folders";
import type { ShownMemory } from "../../../extension/chat/shown-memory";

export const FOLDER = "file:///ws";

/** The narrow runtimes interface over one real WorkspaceRuntime. */
export function runtimesOf(
  runtime: WorkspaceRuntimeApi,
  restricted: () => string | undefined = () => undefined,
): ChatFolders {
  const folder = { key: FOLDER, name: "ws", runtime };
  return {
    folders: () => [folder],
    attach: (open) => open(folder),
    providerConfigured: () => true,
    models: () => [{ provider: "test", model: "gpt-4o" }],
    defaultModel: () => ({ provider: "test", model: "gpt-4o" }),
    restricted,
  };
}

/** Host actions that record what the chat asked the editor to do. */
export function recordingActions(): HostActions & { calls: [string, ...unknown[]][] } {
  const calls: [string, ...unknown[]][] = [];
  const rec =
    (name: string, value: unknown = undefined) =>
    async (...args: unknown[]) => {
      calls.push([name, ...args.filter((a) => typeof a !== "object" || a === null || !("runtime" in (a as object)))]);
      return value as never;
    };
  return {
    calls,
    openLink: rec("openLink", true),
    openDiff: rec("openDiff"),
    undoEdit: rec("undoEdit", { path: "src/a.ts" }),
    copy: rec("copy"),
    insertAtCursor: rec("insertAtCursor", true),
    runCommand: rec("runCommand"),
    searchFiles: rec("searchFiles", ["src/a.ts"]),
    readAttachment: rec("readAttachment", "file text"),
    searchMentions: rec("searchMentions", ["src/a.ts"]),
    resolveMention: rec("resolveMention", { info: { kind: "problems", label: "Problems (0)" }, text: "no problems" }),
    exportSession: rec("exportSession"),
  };
}

/** A view's RPC server with what it posted, and a request helper that awaits the reply. */
export function view(controller: ChatController, actions: HostActions, visible = () => true, memory?: ShownMemory) {
  const posted: ChatHostMessage[] = [];
  const waiters: (() => void)[] = [];
  const server = new ChatRpcServer(
    controller,
    actions,
    (m) => {
      posted.push(m);
      for (const w of waiters.splice(0)) w();
    },
    visible,
    memory,
  );
  let id = 0;
  const request = async (method: string, params: unknown): Promise<any> => {
    const n = ++id;
    await server.handle({ kind: "request", id: n, method, params });
    const reply = posted.find((m) => m.kind === "response" && m.id === n);
    if (!reply || reply.kind !== "response") throw new Error(`no reply to ${method}`);
    if ("error" in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return reply.result;
  };
  const agentEvents = () =>
    posted.flatMap((m) => (m.kind === "event" && m.event.type === "agent" ? [m.event.event] : []));
  /** Resolves when a posted agent event matches (bounded). */
  const until = (match: (e: ReturnType<typeof agentEvents>[number]) => boolean, timeoutMs = 10_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("event not posted in time")), timeoutMs);
      const check = () => (agentEvents().some(match) ? (clearTimeout(timer), resolve()) : waiters.push(check));
      check();
    });
  const hostEvents = () => posted.flatMap((m) => (m.kind === "event" && m.event.type !== "agent" ? [m.event] : []));
  /** Resolves once `count` posted non-agent events match (bounded). */
  const untilHostEvent = (
    match: (e: ReturnType<typeof hostEvents>[number]) => boolean,
    count = 1,
    timeoutMs = 10_000,
  ) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`host event not posted in time; posted: ${JSON.stringify(hostEvents().map((e) => e.type))}`),
          ),
        timeoutMs,
      );
      const check = () =>
        hostEvents().filter(match).length >= count ? (clearTimeout(timer), resolve()) : waiters.push(check);
      check();
    });
  return { server, posted, request, agentEvents, until, hostEvents, untilHostEvent };
}

export { ChatController };
