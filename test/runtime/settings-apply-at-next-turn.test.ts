import assert from "node:assert/strict";
import { test } from "node:test";
import { CODE_AGENT, ASK_AGENT } from "../../core/runtime/agents";
import { wire } from "../support/provider-server";
import { startHarness } from "../agent/harness";

const toolNames = (body: { tools?: { function: { name: string } }[] }) =>
  (body.tools ?? []).map((t) => t.function.name).sort();
const system = (body: { messages: { role: string; content: string }[] }) => body.messages[0]!.content;

test("updateOptions: a running turn finishes on the agents it started with; the next turn takes the new ones", async (t) => {
  let n = 0;
  const h = await startHarness(
    t,
    () => {
      n++;
      if (n === 1) {
        // The settings change while the first turn is in its first model call.
        h.runtime.updateOptions({
          agents: [
            { ...CODE_AGENT, instructions: "# Agent: Code\nRevised instructions.", tools: ["read_file", "list_dir"] },
            ASK_AGENT,
          ],
        });
        return { sse: wire.openaiChat({ toolCalls: [{ id: "l1", name: "list_dir", arguments: {} }] }) };
      }
      return { sse: wire.openaiChat({ text: `answer ${n}` }) };
    },
    { runtime: { agents: [CODE_AGENT, ASK_AGENT] } },
  );
  h.agent.followUp("first");
  const [first] = await h.agent.run();
  assert.equal(first?.reason, "completed");
  h.agent.followUp("second");
  await h.agent.run();

  const bodies = h.bodies();
  assert.equal(bodies.length, 3);
  // Both calls of the first turn: the old instructions and every tool.
  for (const body of bodies.slice(0, 2)) {
    assert.doesNotMatch(system(body), /Revised instructions/);
    assert.ok(toolNames(body).includes("write_file"));
  }
  // The next turn: the new instructions and the new tool subset.
  assert.match(system(bodies[2]), /Revised instructions/);
  assert.deepEqual(toolNames(bodies[2]), ["list_dir", "read_file"]);
  assert.deepEqual(
    h.runtime.agents.map((a) => a.id),
    ["code", "ask"],
  );
});

test("updateOptions: new compaction settings apply at the next turn of an idle session", async (t) => {
  const h = await startHarness(
    t,
    () => ({ sse: wire.openaiChat({ text: "ok", usage: { input: 900, output: 100 } }) }),
    { agent: { contextWindow: 10_000 } },
  );
  h.agent.followUp("first");
  await h.agent.run();
  h.agent.followUp("second");
  await h.agent.run();
  assert.equal(
    h.events.filter((e) => e.type === "compaction-started").length,
    0,
    "10% of the window is below the default trigger",
  );

  h.runtime.updateOptions({ compaction: { triggerRatio: 0.05 } });
  h.agent.followUp("third");
  await h.agent.run();
  const started = h.events.filter((e) => e.type === "compaction-started");
  assert.deepEqual(
    started.map((e) => e.reason),
    ["usage"],
  );
});

test("updateOptions refuses an empty agent list and keeps the agents it had", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "ok" }) }));
  assert.throws(() => h.runtime.updateOptions({ agents: [] }), /at least one agent/);
  assert.deepEqual(
    h.runtime.agents.map((a) => a.id),
    ["code", "ask"],
  );
});
