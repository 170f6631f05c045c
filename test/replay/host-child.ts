/**
 * A chat host in its own process (the extension host's part of the replay tests): a real
 * WorkspaceRuntime over real files and a loopback provider, the real ChatController and
 * one view's ChatRpcServer. Reads webview requests as JSON lines on stdin and writes
 * every message the view would receive as a JSON line on stdout, so the parent can
 * SIGKILL it mid-run and reopen the folder in a new one.
 */
import { createInterface } from "node:readline";
import { settingsForPolicy } from "../../core/agent/approval";
import { createWorkspaceRuntime } from "../../core/runtime/create";
import { createNodeTools } from "../../core/tools/node";
import { ChatController } from "../../extension/chat/controller";
import { ChatRpcServer } from "../../extension/chat/rpc-server";
import { FOLDER, recordingActions, runtimesOf } from "../extension/chat/helpers";

const [root, baseURL] = process.argv.slice(2) as [string, string];
const window = Number(process.env.REPLAY_CONTEXT_WINDOW ?? 200_000);
const tools = createNodeTools();
let controller: ChatController | undefined;
const runtime = createWorkspaceRuntime({
  root,
  providers: () => [{ id: "test", protocol: "openai-chat", baseURL, apiKey: "sk-test" }],
  model: () => ({ provider: "test", model: "gpt-4o", contextWindow: window }),
  // Reads run; edits and commands ask the chat, as in VS Code by default.
  approval: () => settingsForPolicy("reads"),
  approve: (request, signal) => {
    const { approvals } = controller!;
    if (!approvals.shows({ folderKey: FOLDER, agentId: request.agentId, sessionId: request.sessionId }))
      return Promise.resolve({ approved: false, reason: "no view shows the session" });
    return approvals.decisions.ask(
      { folderKey: FOLDER, agentId: request.agentId, sessionId: request.sessionId, toolCallId: request.toolCallId },
      signal,
    ).decision;
  },
  tools: () => tools,
  retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
  providerSetting: () => "downcity.providers",
  ...(process.env.REPLAY_COMPACTION ? { compaction: JSON.parse(process.env.REPLAY_COMPACTION) } : {}),
});
const runtimes = runtimesOf(runtime);
controller = new ChatController({
  ...runtimes,
  defaultModel: () => ({ provider: "test", model: "gpt-4o", contextWindow: window }),
});
const write = (line: unknown) => process.stdout.write(`${JSON.stringify(line)}\n`);
const view = new ChatRpcServer(
  controller,
  recordingActions(),
  (message) => write({ posted: message }),
  () => true,
);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const command = JSON.parse(line) as {
    request?: unknown;
    compact?: { agentId: string; sessionId: string };
    close?: boolean;
    tag?: number;
  };
  if (command.request) void view.handle(command.request);
  else if (command.compact) {
    void runtime.compactNow(command.compact).then(
      (result) => write({ tag: command.tag, result }),
      (error: Error) => write({ tag: command.tag, error: error.message }),
    );
  } else if (command.close) {
    void runtime.close().then(() => {
      write({ closed: true });
      process.exit(0);
    });
  }
});
write({ ready: true });
