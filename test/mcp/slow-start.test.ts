// A server that hangs at start (a real child process, held until the test releases it)
// must not hold the run: the run goes on with the servers that are ready and says so; the
// slow one joins the next run, which is told it is ready (or why it failed).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mock, test } from "node:test";
import { tempDir } from "../support/temp";
import { withTimeout } from "../support/with-timeout";
import { config, fixtureServer, START_WAIT_MS, testHost, WORKSPACE } from "./helpers";

const names = (tools: readonly { name: string }[]) => tools.map((t) => t.name);

/** A log whose `waiting` resolves when the hanging fixture says it is waiting (its stderr). */
function hangLog() {
  let seen!: () => void;
  const waiting = new Promise<void>((ok) => (seen = ok));
  const log = {
    stderr: (_server: string, line: string) => {
      if (line.startsWith("fixture: waiting for")) seen();
    },
    info: () => {},
  };
  return { log, waiting: withTimeout(waiting, START_WAIT_MS, "the hanging server's stderr") };
}

test("a server hanging at start: the run goes on after firstRunWaitMs with the ready ones; it joins the next run", async (t) => {
  const root = tempDir(t);
  const gate = join(tempDir(t), "release");
  const hang = hangLog();
  const host = testHost(t, root, { firstRunWaitMs: 300, log: hang.log });
  host.manager.setConfig(config({ fast: fixtureServer(), slow: fixtureServer({ FIXTURE_WAIT_FOR: gate }) }));
  // "fast" is up before the run: its own start time is not what this test is about.
  await host.manager.start("fast");

  const first = await host.manager.tools();
  assert.ok(names(first.tools).includes("mcp__fast__ok"), names(first.tools).join(", "));
  assert.ok(!names(first.tools).some((n) => n.startsWith("mcp__slow__")));
  assert.deepEqual(first.notices, [
    'MCP server "slow" is still starting after 0.3 s: this run goes on without its tools; they join the next run once it is ready.',
  ]);
  const slow = () => host.manager.status().find((s) => s.name === "slow")!;
  assert.equal(slow().state, "starting", "it keeps starting in the background");

  await hang.waiting;
  writeFileSync(gate, "go");
  await host.until(() => slow().state === "running", "slow running");
  const next = await host.manager.tools();
  assert.ok(names(next.tools).includes("mcp__slow__ok"), names(next.tools).join(", "));
  assert.ok(names(next.tools).includes("mcp__fast__ok"));
  assert.equal(next.notices.length, 3, next.notices.join("\n"));
  assert.match(next.notices[0]!, /^MCP server "slow" is ready: its \d+ tools join from this run\.$/);
  assert.match(next.notices[1]!, /"slow": tool "bad_schema" is disabled/, "its schema notices come with it");
  assert.deepEqual((await host.manager.tools()).notices, [], "each notice is told once");
});

test("the wait counts from consent: a user slow to answer does not make the run go on without the server", async (t) => {
  const root = tempDir(t);
  let answer!: (ok: boolean) => void;
  let asked!: () => void;
  const prompt = new Promise<void>((ok) => (asked = ok));
  const host = testHost(t, root, {
    firstRunWaitMs: 300,
    consent: () =>
      new Promise<boolean>((ok) => {
        answer = ok;
        asked();
      }),
  });
  host.manager.setConfig(config({ fx: fixtureServer() }, WORKSPACE));
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const run = host.manager.tools();
  await withTimeout(prompt, 30_000, "the consent prompt");
  // Minutes at the prompt: had the wait started, it would have fired now.
  mock.timers.tick(600_000);
  answer(true);
  const result = await run;
  assert.ok(names(result.tools).includes("mcp__fx__ok"), result.notices.join("\n"));
  assert.ok(!result.notices.some((n) => /still starting/.test(n)), result.notices.join("\n"));
});

test("a server that fails in the background after the run went on: the next run is told why", async (t) => {
  const root = tempDir(t);
  const gate = join(tempDir(t), "release");
  const hang = hangLog();
  const host = testHost(t, root, { firstRunWaitMs: 200, backoff: { maxRestarts: 0 }, log: hang.log });
  host.manager.setConfig(config({ slow: fixtureServer({ FIXTURE_WAIT_FOR: gate, FIXTURE_CRASH_AFTER_WAIT: "1" }) }));
  const first = await host.manager.tools();
  assert.equal(first.tools.length, 0);
  assert.match(first.notices[0]!, /"slow" is still starting/);
  await hang.waiting;
  writeFileSync(gate, "go");
  await host.until(() => host.manager.status()[0]!.state === "failed", "slow failed");
  const next = await host.manager.tools();
  assert.equal(next.notices.length, 1, next.notices.join("\n"));
  assert.match(next.notices[0]!, /^MCP server "slow" could not start: .*fixture: crashing after the wait/s);
});

test("the start timeout is the host's, read at each start: past it the server fails saying so; longer, it starts", async (t) => {
  const root = tempDir(t);
  const gate = join(tempDir(t), "release");
  let timeoutMs = 500;
  const host = testHost(t, root, { startTimeoutMs: () => timeoutMs, backoff: { maxRestarts: 0 } });
  host.manager.setConfig(config({ slow: fixtureServer({ FIXTURE_WAIT_FOR: gate }) }));
  await assert.rejects(
    host.manager.start("slow"),
    /"slow" could not start: it did not answer "initialize" within 0\.5 s/,
  );
  assert.equal(host.manager.status()[0]!.state, "failed");
  // The setting changed (the same connection, no new configuration): the next start waits as long.
  timeoutMs = 60_000;
  writeFileSync(gate, "go");
  await host.manager.start("slow");
  assert.equal(host.manager.status()[0]!.state, "running");
});
