import assert from "node:assert/strict";
import { test } from "node:test";
import { contextShare, DEFAULT_CONTEXT_WINDOW, type AgentEvent, type AgentEventOf } from "../../../core/protocol";
import { startProviderServer, wire } from "../../support/provider-server";
import { tempDir } from "../../support/temp";
import { activateWithEnvProvider } from "../../support/extension/helpers";

// Issue 19 item 7 and issue 20 item 5: a model whose window nobody knows (not in the table,
// not reported by the server, not in the profile) gets the stated default, with no banner;
// the status bar shows the figure the chat meter computes from the same usage event.
test("an unknown window is the stated default without a notice, and the status bar shows the meter's figure", async (t) => {
  const root = tempDir(t);
  const server = await startProviderServer((req) =>
    req.method === "POST"
      ? { sse: wire.openaiChat({ text: "Looked around.", usage: { input: 16_000, output: 384 } }) }
      : wire.error("openai-chat", 404, "no such endpoint"),
  );
  t.after(() => server.close());
  const { host } = await activateWithEnvProvider(t, root, server.baseURL);
  const { runtime } = host.runtimes.all()[0]!;
  const events: AgentEvent[] = [];
  runtime.onEvent((e) => events.push(e));
  const session = runtime.create("code");
  host.status.setActive(root, { agentId: "code", sessionId: session.id });
  const [result] = await runtime.prompt({ agentId: "code", sessionId: session.id }, "look around");
  assert.equal(result?.reason, "completed", result?.error);

  const usage = events.find((e): e is AgentEventOf<"usage"> => e.type === "usage");
  assert.ok(usage, "a usage event");
  assert.equal(usage.contextWindow, DEFAULT_CONTEXT_WINDOW);
  assert.equal(usage.windowAssumed, true);
  assert.deepEqual(
    events.filter((e) => e.type === "notice").map((e) => (e as AgentEventOf<"notice">).message),
    [],
    "no banner about the window",
  );
  const share = contextShare(usage.usage, usage.contextWindow)!;
  assert.equal(Math.round(share.ratio * 100), 50);
  assert.match(host.status.text, /m1 · 50%/, "the status bar shows the meter's figure");
  await host.runtimes.close();
});
