// A server stopped while it is still starting (Stop in MCP Servers, the folder closed, the window
// going) must not keep its process until the start times out: with a generous
// downcity.mcp.startTimeoutSeconds a hanging server would outlive its stop by minutes.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../support/temp";
import { config, fixtureServer, testHost } from "./helpers";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test("stopping a server that hangs at start ends its process; the start settles as stopped", async (t) => {
  const dir = tempDir(t);
  const started = join(dir, "started");
  const host = testHost(t, tempDir(t), { startTimeoutMs: 600_000, backoff: { maxRestarts: 0 } });
  host.manager.setConfig(
    config({ slow: fixtureServer({ FIXTURE_WAIT_FOR: join(dir, "never"), FIXTURE_STARTED: started }) }),
  );
  const start = host.manager.start("slow").then(
    () => "settled",
    (err: unknown) => `failed: ${String(err)}`,
  );
  await host.stderrLine(/^slow: fixture: waiting for never$/);
  const pid = Number(readFileSync(started, "utf8").trim());
  assert.ok(alive(pid), "the server's process runs, hanging at start");
  // The stop waits for the process to go (stdin closed, then SIGTERM): no start timeout is needed.
  await host.manager.stop("slow");
  assert.equal(alive(pid), false, `the server's process ${pid} outlived its stop`);
  assert.equal(await start, "settled", "a stopped start is no failure");
  assert.equal(host.manager.status()[0]!.state, "stopped");
});
