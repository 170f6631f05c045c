// Issue 20 item 6 in the real host: a workspace's first window at scale lists the Sessions tree's first pages on a
// worker thread (dist/first-page-worker.js, shipped in the VSIX), and its next window draws the rows it remembered
// without starting one. dist/downcity.vsix in code-server, the view opened from the activity bar; where the first
// rows came from is read from the extension's hop trace. Screenshots land in test/.tmp/e2e/tree-off-thread-ui/.
import { strict as assert } from "node:assert";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { OFF_THREAD_MIN } from "../../extension/sessions/off-thread-pages";
import { manySessions } from "../support/many-sessions";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { openDowncityView, sessionRow } from "../support/workbench/workbench";
import {
  chainedSteps,
  dirHolds,
  extensionHostPid,
  fileMatches,
  gotoWorkbench,
  missingVsCode,
  openWorkbench,
  outputDir,
  installPackagedVsix,
} from "./helpers";

const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"));
/** Just over the bound from which a first window lists off the host's thread. */
const COUNT = OFF_THREAD_MIN + 50;

const hopsIn = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { hop: string }).hop);

test(
  "a first window at scale lists its first rows off the host's thread; the next window draws the remembered ones without a worker",
  { skip: missingVsCode(), timeout: 240_000 },
  async (t) => {
    const out = outputDir("tree-off-thread-ui");
    await installPackagedVsix(out);
    // Not named "…sessions": the Explorer's header would pass for the Sessions view's.
    const workspace = join(out, "big-store");
    mkdirSync(workspace, { recursive: true });
    // Session i last active i minutes ago: "Session 0" is the newest, in Today.
    const now = Date.now();
    await manySessions(workspace, COUNT, (i) => now - (i + 1) * 60_000);
    const hops = join(out, "hops.jsonl");
    writeFileSync(hops, "");
    const workbench = await openWorkbench(out, { env: { DOWNCITY_HOP_TRACE: hops } });
    t.after(() => workbench.close());
    const { page } = workbench;
    const step = chainedSteps(t, workbench);
    // A row's text is its label run into its description ("Session 0", "1 min ago"); no other title starts "Session 0".
    const newest = /^Session 0\d+ min ago/;

    await step("01 the first window's first rows come from a worker thread", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncityView(page);
      await sessionRow(page, newest).waitFor({ timeout: 30_000 });
      const trace = hopsIn(hops);
      const started = trace.indexOf("first pages off thread started");
      assert.ok(started >= 0 && trace.indexOf("first pages off thread in") > started, trace.join(" → "));
      assert.deepEqual(
        trace.filter((hop) => hop.startsWith("tree first page listed")),
        ["tree first page listed (off thread)"],
      );
    });

    await step("02 the next window draws the remembered rows and starts no worker", async () => {
      const storage = join(workbench.server.userDataDir, "User", "workspaceStorage");
      const [id] = await dirHolds(storage, 1, 30_000);
      const remembered = join(storage, id!, `${manifest.publisher}.${manifest.name}`, "sessions-first-rows.json");
      // Written once the full list is in (a few seconds at this size).
      await fileMatches(remembered, /"s0000"/, 60_000);
      process.kill(extensionHostPid(workbench.server.process.pid!), "SIGKILL");
      writeFileSync(hops, "");
      await page.reload();
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncityView(page);
      await sessionRow(page, newest).waitFor({ timeout: 30_000 });
      const trace = hopsIn(hops);
      assert.deepEqual(
        trace.filter((hop) => hop.startsWith("tree first page listed")),
        ["tree first page listed (remembered)"],
      );
      assert.ok(!trace.includes("first pages off thread started"), trace.join(" → "));
    });
  },
);
