import type { AgentEvent } from "../protocol";

type WithoutSession<T> = T extends unknown ? Omit<T, "sessionId" | "agentId"> : never;

/** An agent event before the loop stamps its session on it. */
export type AgentEventBody = WithoutSession<AgentEvent>;
export type EmitAgentEvent = (event: AgentEventBody) => void;

/** The first line of an error text (what outcome lines and cards show). */
export function firstLine(text: string): string {
  const line = text.split("\n", 1)[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
