import { execFileSync } from "node:child_process";
import type { ToolCheckpoint, ToolResultData } from "../../core/protocol";
import type { Session } from "../../core/session";
import { wire } from "../support/provider-server";
import { startHarness, type Harness, type HarnessAgentOptions } from "../agent/harness";

export type Step = { toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[] } | { text: string };

/**
 * A harness whose model plays `turns`: each turn is a list of steps (tool calls, then an
 * answer), one reply per request. Returns the harness and a `turn()` that sends the next prompt.
 */
export async function scriptedTurns(
  t: { after(fn: () => unknown): void },
  root: string,
  turns: Step[][],
  agent?: HarnessAgentOptions,
): Promise<Harness & { ref: { agentId: string; sessionId: string }; turn(text: string): Promise<void> }> {
  const replies = turns.flat();
  let n = 0;
  const h = await startHarness(
    t,
    () => ({
      sse: wire.frames("openai-chat", {
        ...(replies[Math.min(n++, replies.length - 1)] ?? { text: "done" }),
        usage: { input: 100, output: 10 },
      }),
    }),
    { root, ...(agent ? { agent } : {}) },
  );
  const ref = { agentId: h.agent.session.agentId, sessionId: h.agent.session.id };
  return {
    ...h,
    ref,
    async turn(text: string) {
      const [outcome] = await h.runtime.prompt(ref, text);
      if (outcome?.reason !== "completed") throw new Error(`turn ${text}: ${outcome?.reason} ${outcome?.error ?? ""}`);
    },
  };
}

export const edit = (id: string, path: string, oldText: string, newText: string): Step => ({
  toolCalls: [{ id, name: "edit_file", arguments: { path, edits: [{ oldText, newText }] } }],
});
export const write = (id: string, path: string, content: string): Step => ({
  toolCalls: [{ id, name: "write_file", arguments: { path, content } }],
});
export const run = (id: string, command: string): Step => ({
  toolCalls: [{ id, name: "run_command", arguments: { command } }],
});
export const say = (text: string): Step => ({ text });

export function checkpoints(session: Session): ToolCheckpoint[] {
  return session
    .events()
    .filter((e) => e.type === "tool/result")
    .map((e) => (e.data as ToolResultData).checkpoint)
    .filter((c): c is ToolCheckpoint => c !== undefined);
}

export function userMessageSeqs(session: Session): number[] {
  return session
    .events()
    .filter((e) => e.type === "user/message")
    .map((e) => e.seq);
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "commit.gpgsign=false", ...args],
    { cwd, encoding: "utf8", env: { PATH: process.env.PATH!, HOME: cwd, GIT_CONFIG_NOSYSTEM: "1" } },
  );
}
