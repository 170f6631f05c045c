import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolRegistry } from "../../core/tools/registry";
import { tempDir } from "../support/temp";
import { config, fixtureServer, testHost } from "./helpers";

/**
 * Backoff on the clock of node:test's mock timers: the restart waits baseMs · 2^n and no
 * less, then gives up after maxRestarts in a row. The processes are real; only the delay is mocked.
 */
test("a crashed server is restarted after 1 s, then 2 s; after the last restart allowed it is left failed", async (t) => {
  const h = testHost(t, tempDir(t), { backoff: { baseMs: 1_000, maxMs: 30_000, maxRestarts: 2, stableMs: 60_000 } });
  h.manager.setConfig(config({ fx: fixtureServer() }));
  await h.manager.tools();
  t.mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => t.mock.timers.reset());
  const state = () => h.manager.status()[0]!;

  const crash = async () => {
    const { tools } = await h.manager.tools();
    const registry = new ToolRegistry(tools);
    await registry.run("mcp__fx__crash", {}, { root: "/", signal: new AbortController().signal });
  };
  const restarted = (n: number) => h.until(() => state().state === "running" && state().restarts === n, `restart ${n}`);

  await crash();
  assert.equal(state().state, "restarting");
  assert.match(state().lastError!, /restart 1 of 2 in 1000 ms/);
  t.mock.timers.tick(999);
  assert.equal(state().state, "restarting", "not before the delay");
  const first = restarted(1);
  t.mock.timers.tick(1);
  await first;

  await crash();
  assert.match(state().lastError!, /restart 2 of 2 in 2000 ms/);
  t.mock.timers.tick(1_999);
  assert.equal(state().state, "restarting");
  const second = restarted(2);
  t.mock.timers.tick(1);
  await second;

  await crash();
  assert.equal(state().state, "failed");
  assert.match(state().lastError!, /not restarted again after 2 restarts in a row/);
  assert.match(state().lastError!, /fixture: crashing mid-call/);
  assert.deepEqual((await h.manager.tools()).tools, [], "a failed server offers no tools");

  // The user's Start (from "Downcity: MCP Servers") starts it again with a fresh count.
  t.mock.timers.reset();
  await h.manager.start("fx");
  assert.equal(state().state, "running");
  assert.equal(state().restarts, 0);
});

test("a stop cancels a pending restart; a call to a stopped server says how to start it", async (t) => {
  const h = testHost(t, tempDir(t), { backoff: { baseMs: 1_000, maxRestarts: 5 } });
  h.manager.setConfig(config({ fx: fixtureServer() }));
  const { tools } = await h.manager.tools();
  t.mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => t.mock.timers.reset());
  await new ToolRegistry(tools).run("mcp__fx__crash", {}, { root: "/", signal: new AbortController().signal });
  assert.equal(h.manager.status()[0]!.state, "restarting");
  await h.manager.stop("fx");
  t.mock.timers.tick(60_000);
  assert.equal(h.manager.status()[0]!.state, "stopped", "Stop wins over the scheduled restart");
  const out = await new ToolRegistry(tools).run("mcp__fx__ok", {}, { root: "/", signal: new AbortController().signal });
  assert.match(out.content[0]!.type === "text" ? out.content[0]!.text : "", /is stopped; the user can start it/);
  t.mock.timers.reset();
  assert.deepEqual((await h.manager.tools()).tools, [], "a run does not start what the user stopped");
  assert.equal(h.manager.status()[0]!.state, "stopped");
  await h.manager.start("fx");
  assert.ok((await h.manager.tools()).tools.length > 0, "the user's Start does");
});
