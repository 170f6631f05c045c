// `downcity.mcp.firstRunWaitSeconds`: how long a run waits for a server it starts before it goes
// on without its tools. A real fixture server hangs at start until the test releases it; the
// wait's timer is mocked, so "past 3 s" is a tick, not a sleep.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mock, test, type TestContext } from "node:test";
import type * as vscode from "vscode";
import { McpServers } from "../../../extension/mcp/servers";
import * as fake from "../../support/vscode-fake";
import { fakeContext, folder } from "../../support/extension/helpers";
import { tempDir } from "../../support/temp";
import { fixtureServer } from "../../mcp/helpers";

const WAIT = "downcity.mcp.firstRunWaitSeconds";

function setting(t: TestContext, key: string, value: unknown): void {
  fake.settings[key] = value;
  t.after(() => delete fake.settings[key]);
}

// Taken before any test mocks the timers: the bound on waiting for the child is real time.
const realSetTimeout = setTimeout;
const realClearTimeout = clearTimeout;

/**
 * The user's own server "slow" (trusted: no consent), hanging at start until `release()`;
 * `waiting()` resolves when its stderr says it is waiting, i.e. the run's wait has begun.
 */
function slowServer(t: TestContext) {
  const gate = join(tempDir(t), "release");
  setting(t, "downcity.mcp.servers", { servers: { slow: fixtureServer({ FIXTURE_WAIT_FOR: gate }) } });
  const lines: string[] = [];
  let seen!: () => void;
  const hanging = new Promise<void>((ok) => (seen = ok));
  const s = new McpServers(fakeContext(), {
    appendLine: (line: string) => {
      lines.push(line);
      if (line.startsWith("[slow] fixture: waiting for")) seen();
    },
    show() {},
    dispose() {},
  } as unknown as vscode.OutputChannel);
  /** `promise` within a real minute, or a failure naming `what` with the MCP channel's lines and the server's state. */
  const within = <T>(promise: Promise<T>, what: string): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, fail) => {
      timer = realSetTimeout(() => {
        const state = JSON.stringify(s.all()[0]?.manager.status());
        fail(new Error(`timed out waiting for ${what}; state ${state}; Downcity MCP:\n${lines.join("\n")}`));
      }, 60_000);
    });
    return Promise.race([promise, late]).finally(() => realClearTimeout(timer));
  };
  const waiting = () => within(hanging, "the server to say it waits");
  // Timers from here on are mocked. After hooks run in order: real timers are back, then the
  // servers are stopped to the end (stdin closed, SIGTERM after a real 2 s): a start left to end
  // in the next test would clear its mocked timer ids there, which name that test's timers.
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  t.after(async () => {
    await Promise.all(s.all().map((x) => x.manager.close()));
    s.dispose();
  });
  return { s, f: folder(tempDir(t)), waiting, within, release: () => writeFileSync(gate, "go") };
}

const names = (tools: readonly { name: string }[]) => tools.map((x) => x.name);

test(
  "firstRunWaitSeconds 60: the run waits past the 3 s default for the starting server, and gets its tools",
  { timeout: 120_000 },
  async (t) => {
    setting(t, WAIT, 60);
    const { s, f, waiting, within, release } = slowServer(t);
    let settled = false;
    const run = s.tools(f).finally(() => (settled = true));
    await waiting();
    // 10 s: past the default 3 s (which would end the wait here), short of the setting's 60 s.
    mock.timers.tick(10_000);
    await new Promise<void>((ok) => setImmediate(ok));
    assert.equal(settled, false, "the run still waits for the server");
    release();
    const result = await within(run, "the run");
    assert.ok(names(result.tools).includes("mcp__slow__ok"), names(result.tools).join(", "));
    assert.ok(!result.notices.some((n) => /still starting/.test(n)), result.notices.join("\n"));
  },
);

test(
  "firstRunWaitSeconds 5: the run goes on after 5 s without the server, saying so",
  { timeout: 120_000 },
  async (t) => {
    setting(t, WAIT, 5);
    const { s, f, waiting, within } = slowServer(t);
    let settled = false;
    const run = s.tools(f).finally(() => (settled = true));
    await waiting();
    mock.timers.tick(4_999);
    await new Promise<void>((ok) => setImmediate(ok));
    assert.equal(settled, false, "5 s have not passed");
    mock.timers.tick(1);
    const result = await within(run, "the run");
    assert.equal(result.tools.length, 0);
    assert.deepEqual(result.notices, [
      'MCP server "slow" is still starting after 5 s: this run goes on without its tools; they join the next run once it is ready.',
    ]);
  },
);

test("firstRunWaitSeconds unset: the product's 3 s", { timeout: 120_000 }, async (t) => {
  const { s, f, waiting, within } = slowServer(t);
  const run = s.tools(f);
  await waiting();
  mock.timers.tick(3_000);
  const result = await within(run, "the run");
  assert.match(result.notices[0] ?? "", /^MCP server "slow" is still starting after 3 s:/);
});
