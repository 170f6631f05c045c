import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { test } from "node:test";
import type { AgentEvent, CompactionEndData } from "../../core/protocol";
import { sessionPaths } from "../../core/storage";
import { seedSessions } from "../support/workbench/seed";
import { wire } from "../support/provider-server";
import { startHarness, tempWorkspace } from "../agent/harness";

const notices = (events: AgentEvent[]) =>
  events.filter((e): e is Extract<AgentEvent, { type: "notice" }> => e.type === "notice");

// Issue 20 item 7: a session stored under an agent the settings no longer name (here the
// store's "default", which the runtime's code/ask agents do not include) failed with
// "unknown agent". It continues with the default agent's settings and says so once.
test("a session whose agent is not configured continues with the default agent's settings, says so once, and keeps its id and history", async (t) => {
  const root = tempWorkspace(t);
  await seedSessions(root, [
    { id: "orphan", title: "Old plan", agentId: "retired", turns: ["What is left?", "Two issues."] },
  ]);
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Continued." }) }), {
    root,
    agentId: "retired",
    sessionId: "orphan",
  });
  assert.deepEqual(
    h.runtime.agents.map((a) => a.id),
    ["code", "ask"],
  );
  const ref = { agentId: "retired", sessionId: "orphan" };

  const [first] = await h.runtime.prompt(ref, "And now?");
  const [second] = await h.runtime.prompt(ref, "And then?");
  assert.equal(first!.reason, "completed", first!.error);
  assert.equal(second!.reason, "completed", second!.error);
  const told = notices(h.events).filter((n) => n.sessionId === "orphan");
  assert.equal(told.length, 1, "said once, not at every turn");
  assert.equal(told[0]!.agentId, "retired");
  assert.match(told[0]!.message, /agent "retired" is not configured; it continues with the Code agent's settings/);
  // The Code agent's instructions reached the model.
  assert.match(JSON.stringify(h.bodies()[0]), /# Agent: Code/);
  // Same id, same partition, earlier history first.
  assert.ok(existsSync(sessionPaths(root, "retired", "orphan").active));
  assert.equal(existsSync(sessionPaths(root, "code", "orphan").dir), false, "nothing written under the default agent");
  const page = await h.runtime.messages(ref);
  const users = page.events.filter((e) => e.type === "user/message").map((e) => JSON.stringify(e.data));
  assert.equal(users.length, 3);
  assert.match(users[0]!, /What is left\?/);
  // A configured agent is not told anything.
  const own = h.runtime.create("code");
  await h.runtime.prompt({ agentId: "code", sessionId: own.id }, "hi");
  assert.equal(notices(h.events).filter((n) => n.sessionId === own.id).length, 0);
});

// Issue 20 item 5: Compact Now's toast counted closed events (51) where the chat counted
// closed messages (15). The result now carries compaction/end's own count.
test("Compact Now's result counts the messages compaction/end and the chat's event count, not the events closed", async (t) => {
  const h = await startHarness(
    t,
    () => ({ sse: wire.openaiChat({ text: `An answer long enough to be worth closing. ${"detail ".repeat(200)}` }) }),
    { agent: { contextWindow: 2_000 } },
  );
  const ref = { agentId: "code", sessionId: h.agent.session.id };
  for (const q of ["one", "two", "three", "four"]) await h.runtime.prompt(ref, q);
  const result = await h.runtime.compactNow(ref);
  const end = h.agent.session
    .events()
    .filter((e) => e.type === "compaction/end")
    .at(-1)!;
  const data = end.data as CompactionEndData;
  const finished = h.events.filter((e) => e.type === "compaction-finished").at(-1) as Extract<
    AgentEvent,
    { type: "compaction-finished" }
  >;
  assert.ok(result.closed > 0, JSON.stringify(result));
  assert.equal(result.closed, data.closed);
  assert.equal(finished.closed, result.closed);
  // More events than messages were closed (turn and step events, request headers): the old count differed.
  assert.ok(result.throughSeq! > result.closed, `through seq ${result.throughSeq} vs ${result.closed} messages`);
  assert.equal(readdirSync(sessionPaths(h.root, "code", ref.sessionId).segments).length, 1);
});
