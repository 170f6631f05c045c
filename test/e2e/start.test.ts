// `npm start`'s launcher: prints a URL that serves the workbench on 127.0.0.1, and
// Ctrl-C (SIGINT) stops code-server and everything it spawned.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../support/workbench/code-server";
import { missingVsCode, outputDir, withTimeout } from "./helpers";

test(
  "the start script serves the sample workspace on 127.0.0.1 and Ctrl-C stops it",
  { skip: missingVsCode(), timeout: 90_000 },
  async (t) => {
    const out = outputDir("start");
    const child = spawn(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "scripts", "start.ts")], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DOWNCITY_START_DIR: out },
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    t.after(() => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* already stopped */
      }
    });
    const exited = new Promise<number | null>((ok) => child.on("exit", (code) => ok(code)));
    let output = "";
    const url = await withTimeout(
      new Promise<string>((ok, fail) => {
        child.stdout.on("data", (d) => {
          output += d;
          const match = /http:\/\/127\.0\.0\.1:\d+\/\?folder=\S+/.exec(output);
          if (match) ok(match[0]);
        });
        child.stderr.on("data", (d) => (output += d));
        void exited.then(() => fail(new Error(`start exited early:\n${output}`)));
      }),
      60_000,
      "the start script to print its URL",
    );
    assert.match(decodeURIComponent(url), /sample-workspace$/);
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /workbench/);

    // Ctrl-C reaches only the script (not the whole group): it must stop code-server itself.
    process.kill(child.pid!, "SIGINT");
    assert.equal(await withTimeout(exited, 15_000, "the start script to exit after SIGINT"), 130);
    await assert.rejects(fetch(url), "code-server still answers after Ctrl-C");
    assert.deepEqual(processesWithHome(join(out, "home")), [], "code-server's processes outlived Ctrl-C");
  },
);

/** Pids of live processes whose environment has HOME=home (code-server and all it spawned). */
function processesWithHome(home: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "latin1").split("\0").includes(`HOME=${home}`))
        pids.push(Number(entry));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return pids;
}
