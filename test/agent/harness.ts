import { Agent, type AgentOptions } from "../../core/agent";
import { LlmRuntime } from "../../core/llm";
import type { Protocol } from "../../core/llm/types";
import { Sessions } from "../../core/storage";
import { ToolRegistry } from "../../core/tools/registry";
import { createNodeTools } from "../../core/tools/node";
import { tempDir } from "../support/temp";
import { startProviderServer, type ProviderHandler, type ProviderServer } from "../support/provider-server";

export function tempWorkspace(t: { after(fn: () => unknown): void }): string {
  return tempDir(t, "downcity-agent-");
}

export interface Harness {
  root: string;
  server: ProviderServer;
  sessions: Sessions;
  agent: Agent;
  /** Request bodies the provider received, in order. */
  bodies(): any[];
}

/** A real loop over real files, a real store and a loopback provider speaking `protocol`. */
export async function startHarness(
  t: { after(fn: () => unknown): void },
  handler: ProviderHandler,
  options: { protocol?: Protocol; root?: string; agent?: Partial<AgentOptions>; sessionId?: string } = {},
): Promise<Harness> {
  const root = options.root ?? tempWorkspace(t);
  const protocol = options.protocol ?? "openai-chat";
  const server = await startProviderServer(handler);
  const sessions = new Sessions({ root });
  t.after(async () => {
    await sessions.close();
    await server.close();
  });
  const llm = new LlmRuntime({
    profiles: [{ id: "test", protocol, baseURL: protocol === "anthropic-messages" ? server.anthropicBaseURL : server.baseURL, apiKey: "sk-test" }],
  });
  const session = options.sessionId ? (await sessions.open({ sessionId: options.sessionId })).session : sessions.create({ id: "session-test" });
  const agent = new Agent({
    session,
    storage: sessions,
    llm,
    tools: new ToolRegistry(createNodeTools()),
    model: { provider: "test", model: protocol === "anthropic-messages" ? "claude-opus-4-5" : "gpt-4o" },
    workspace: { root, platform: process.platform },
    policy: "all",
    retry: { baseDelayMs: 5, maxDelayMs: 50 },
    ...options.agent,
  });
  return { root, server, sessions, agent, bodies: () => server.requests.map((r) => r.body) };
}
