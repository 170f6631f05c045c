// Issue 19 item 4 in a window of its own: code-server opened on a plain folder (no
// .code-workspace, whose jsonc starts the TypeScript extension) with no file open, and
// only test/host/code-intel-fresh-window.host.ts run inside it (DOWNCITY_HOST_GREP).
// DOWNCITY_FRESH_WINDOW makes that test fail, not skip, if the window is not fresh.
import { createWriteStream, existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildHostTests } from "../support/workbench/build-host-tests";
import { PROJECT_ROOT, remoteUri, workbenchUrl } from "../support/workbench/code-server";
import { parseHostResults } from "../host/results";
import { gotoWorkbench, missingVsCode, openWorkbench, outputDir, withTimeout } from "./helpers";

// Past the in-host test's 180 s (itself past the tool's 120 s bound) plus the workbench and extension host starting.
const RUN_TIMEOUT_MS = 300_000;

test(
  "code intelligence answers right on the first question in a fresh window (real TypeScript extension)",
  { skip: missingVsCode(), timeout: RUN_TIMEOUT_MS + 60_000 },
  async (t) => {
    const out = outputDir("code-intel-fresh-window");
    const resultsFile = join(out, "results.ndjson");
    const testsModule = await buildHostTests();
    const folder = join(out, "workspace");
    mkdirSync(folder, { recursive: true });
    const workbench = await openWorkbench(out, {
      env: {
        DOWNCITY_HOST_RESULTS: resultsFile,
        DOWNCITY_HOST_GREP: "code intelligence in a fresh window",
        DOWNCITY_FRESH_WINDOW: "1",
        // The other host test files read it as they load (their suites do not run here).
        DOWNCITY_HOST_WORKSPACE: JSON.stringify({ folders: [folder, join(out, "unused-second-folder")], seeded: [] }),
      },
    });
    t.after(() => workbench.close());
    const { page, server } = workbench;
    const consoleLog = createWriteStream(join(out, "exthost-console.log"));
    t.after(() => consoleLog.end());
    let exit!: (code: number) => void;
    const exited = new Promise<number>((ok) => (exit = ok));
    await page.exposeFunction("codeAutomationExit", (code: number) => exit(code));
    await page.exposeFunction("codeAutomationLog", (type: string, args: unknown[]) => {
      consoleLog.write(
        `[${type}] ${(Array.isArray(args) ? args : [args])
          .map((a) => (typeof a === "string" ? a : JSON.stringify(a)))
          .join(" ")
          .replace(/%c/g, "")}\n`,
      );
    });
    const payload: [string, string][] = [
      ["extensionDevelopmentPath", remoteUri(server, PROJECT_ROOT)],
      ["extensionTestsPath", remoteUri(server, testsModule)],
    ];
    await gotoWorkbench(page, workbenchUrl(server, folder, payload));
    const code = await withTimeout(exited, RUN_TIMEOUT_MS, "the in-host test to finish (window.codeAutomationExit)");
    const records = existsSync(resultsFile) ? parseHostResults(readFileSync(resultsFile, "utf8")) : [];
    const tests = records.filter((r) => r.type === "test");
    if (code !== 0 || tests.some((r) => !r.ok)) await workbench.screenshot("failure");
    for (const record of tests) {
      await t.test(record.title, () => {
        if (record.skipped) throw new Error("skipped: the window was not fresh");
        if (!record.ok) throw new Error(record.error ?? "failed");
      });
    }
    if (tests.length !== 3)
      throw new Error(`expected the 3 fresh-window tests, got ${tests.length}; artefacts: ${out}`);
    if (code !== 0) throw new Error(`the extension host reported exit code ${code}; artefacts: ${out}`);
  },
);
