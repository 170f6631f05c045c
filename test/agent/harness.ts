import type { ApprovalPolicy } from "../../core/agent";
import type { Protocol } from "../../core/llm/types";
import type { AgentEvent, ContentBlock } from "../../core/protocol";
import type { Session } from "../../core/session";
import {
  createWorkspaceRuntime,
  type RunResult,
  type WorkspaceRuntimeApi,
  type WorkspaceRuntimeOptions,
} from "../../core/runtime";
import { settingsForPolicy } from "../../core/agent/approval";
import { createNodeTools } from "../../core/tools/node";
import type { CompactionSettings } from "../../core/compaction";
import { startProviderServer, type ProviderHandler, type ProviderServer } from "../support/provider-server";

import { tempWorkspace } from "../support/temp";

export { tempWorkspace };

/** The loop options tests vary, mapped onto the runtime's. */
export interface HarnessAgentOptions {
  policy?: ApprovalPolicy;
  /** The host's approver (it hears the session and agent of each request). */
  approve?: WorkspaceRuntimeOptions["approve"];
  maxSteps?: number;
  contextWindow?: number;
  compaction?: CompactionSettings;
  titles?: "fallback" | "llm";
}

/** A run result with its error as an Error (what the loop tests assert on). */
export type Outcome = Omit<RunResult, "error"> & { error?: Error };
const outcome = (r: RunResult): Outcome => {
  const { error, ...rest } = r;
  return error === undefined ? rest : { ...rest, error: new Error(error) };
};

/** One session driven through the runtime, in the shape the loop tests use. */
export interface HarnessAgent {
  readonly session: Session;
  /** Queues input for the next turn (or the turn after the running one). */
  followUp(input: string | ContentBlock[]): void;
  steer(input: string | ContentBlock[]): void;
  run(): Promise<Outcome[]>;
  cancel(): void;
}

export interface Harness {
  root: string;
  server: ProviderServer;
  runtime: WorkspaceRuntimeApi;
  /** The store's operations with the runtime's default agent (`code`) for refs without one. */
  sessions: Pick<WorkspaceRuntimeApi, "messages" | "list" | "rename" | "onChange">;
  agent: HarnessAgent;
  /** Every agent event the runtime emitted, in order. */
  events: AgentEvent[];
  /** Request bodies the provider received, in order. */
  bodies(): any[];
}

/** A real runtime over real files, a real store and a loopback provider speaking `protocol`. */
export async function startHarness(
  t: { after(fn: () => unknown): void },
  handler: ProviderHandler,
  options: {
    protocol?: Protocol;
    root?: string;
    agent?: HarnessAgentOptions;
    runtime?: Partial<WorkspaceRuntimeOptions>;
    sessionId?: string;
    agentId?: string;
  } = {},
): Promise<Harness> {
  // The runtime writes into root until it is closed, so the folder goes after it. node:test
  // runs after-hooks in the order they were added, and one that throws skips the rest: a
  // runtime-approval run at load 32 failed with ENOTEMPTY, then never exited (server still open).
  const removals: (() => unknown)[] = [];
  const root = options.root ?? tempWorkspace({ after: (fn) => removals.push(fn) });
  const protocol = options.protocol ?? "openai-chat";
  const server = await startProviderServer(handler);
  const a = options.agent ?? {};
  const tools = createNodeTools();
  const runtime = createWorkspaceRuntime({
    root,
    providers: () => [
      {
        id: "test",
        protocol,
        baseURL: protocol === "anthropic-messages" ? server.anthropicBaseURL : server.baseURL,
        apiKey: "sk-test",
      },
    ],
    model: () => ({
      provider: "test",
      model: protocol === "anthropic-messages" ? "claude-opus-4-5" : "gpt-4o",
      ...(a.contextWindow ? { contextWindow: a.contextWindow } : {}),
    }),
    approval: () => settingsForPolicy(a.policy ?? "all"),
    ...(a.approve ? { approve: a.approve } : {}),
    tools: () => tools,
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...(a.maxSteps ? { maxSteps: a.maxSteps } : {}),
    ...(a.compaction ? { compaction: a.compaction } : {}),
    ...(a.titles ? { titles: a.titles } : {}),
    ...options.runtime,
  });
  t.after(async () => {
    try {
      await runtime.close();
      await server.close();
    } finally {
      for (const remove of removals) await remove();
    }
  });
  const events: AgentEvent[] = [];
  runtime.onEvent((event) => events.push(event));
  const agentId = options.agentId ?? "code";
  const session = options.sessionId
    ? (await runtime.open({ agentId, sessionId: options.sessionId })).session
    : runtime.create(agentId, "session-test");
  const ref = { agentId: session.agentId, sessionId: session.id };
  const queued: (string | ContentBlock[])[] = [];
  let running: Promise<Outcome[]> | undefined;
  const agent: HarnessAgent = {
    session,
    followUp(input) {
      if (runtime.isRunning(ref)) void runtime.prompt(ref, input, { whenRunning: "queue" });
      else queued.push(input);
    },
    steer(input) {
      if (runtime.isRunning(ref)) runtime.steer(ref, input);
      else queued.push(input);
    },
    run() {
      running ??= (async () => {
        const results: Outcome[] = [];
        try {
          while (queued.length > 0) results.push(...(await runtime.prompt(ref, queued.shift()!)).map(outcome));
        } finally {
          running = undefined;
        }
        return results;
      })();
      return running;
    },
    cancel: () => runtime.cancel(ref),
  };
  const sessions: Harness["sessions"] = {
    messages: (r, o) => runtime.messages(r, o),
    list: (f) => runtime.list(f),
    rename: (r, title) => runtime.rename(r, title),
    onChange: (listener) => runtime.onChange(listener),
  };
  return { root, server, runtime, sessions, agent, events, bodies: () => server.requests.map((r) => r.body) };
}
