// Runs test/host/*.host.ts inside code-server's real extension host and reports each
// of them as a subtest here. Mechanism: the workbench's `payload` URL parameter names
// the extension under development (this project) and the tests module; the workbench
// calls its run() and reports the exit code through window.codeAutomationExit. On a
// failure, test/.tmp/e2e/host-tests/ keeps the screenshot, code-server's and the
// extension host's logs.
import { createWriteStream, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { buildHostTests } from "../support/workbench/build-host-tests";
import { PROJECT_ROOT, remoteUri, workbenchUrl } from "../support/workbench/code-server";
import { parseHostResults } from "../host/results";
import { gotoWorkbench, missingVsCode, openWorkbench, outputDir, withTimeout } from "./helpers";
import { seedHostWorkspace } from "../support/host-workspace";

const RUN_TIMEOUT_MS = 180_000;

test(
  "in-host tests (code-server's extension host, real vscode API)",
  { skip: missingVsCode(), timeout: RUN_TIMEOUT_MS + 60_000 },
  async (t) => {
    const out = outputDir("host-tests");
    const resultsFile = join(out, "results.ndjson");
    const testsModule = await buildHostTests();
    const target = await seedHostWorkspace(join(out, "workspace"));
    const workbench = await openWorkbench(out, {
      env: { DOWNCITY_HOST_RESULTS: resultsFile, DOWNCITY_HOST_WORKSPACE: JSON.stringify(target.info) },
    });
    t.after(() => workbench.close());
    const { page, server } = workbench;

    // In extension-test mode the workbench forwards the extension host's console here.
    const consoleLog = createWriteStream(join(out, "exthost-console.log"));
    t.after(() => consoleLog.end());
    let exit!: (code: number) => void;
    const exited = new Promise<number>((ok) => (exit = ok));
    await page.exposeFunction("codeAutomationExit", (code: number) => exit(code));
    await page.exposeFunction("codeAutomationLog", (type: string, args: unknown[]) => {
      const text = (Array.isArray(args) ? args : [args])
        .map((a) => (typeof a === "string" ? a : JSON.stringify(a)))
        .join(" ");
      consoleLog.write(`[${type}] ${text.replace(/%c/g, "")}\n`);
    });

    const payload: [string, string][] = [
      ["extensionDevelopmentPath", remoteUri(server, PROJECT_ROOT)],
      ["extensionTestsPath", remoteUri(server, testsModule)],
    ];
    let code: number | undefined;
    let failure: unknown;
    try {
      await gotoWorkbench(page, workbenchUrl(server, target.open, payload));
      code = await withTimeout(
        Promise.race([
          exited,
          server.exited.then(() => Promise.reject(new Error(`code-server exited; log: ${server.logFile}`))),
        ]),
        RUN_TIMEOUT_MS,
        "the in-host tests to finish (window.codeAutomationExit)",
      );
    } catch (error) {
      failure = error;
    }

    const records = existsSync(resultsFile) ? parseHostResults(readFileSync(resultsFile, "utf8")) : [];
    const failed = records.some((r) => r.type === "test" && !r.ok);
    if (failure || failed || code !== 0) await workbench.screenshot("failure");
    for (const record of records) {
      if (record.type !== "test") continue;
      await t.test(record.title, { skip: record.skipped === true }, () => {
        if (!record.ok) throw new Error(record.error ?? "failed");
      });
    }
    const where = `artefacts: ${out} (failure.png, exthost-console.log, run/code-server.log, run/user-data/logs/)`;
    if (failure) throw new Error(`${(failure as Error).message}\n${where}`);
    if (!records.some((r) => r.type === "end"))
      throw new Error(`the tests module never finished (no end record); ${where}`);
    if (records.filter((r) => r.type === "test").length === 0) throw new Error(`no in-host test ran; ${where}`);
    if (code !== 0) throw new Error(`the extension host reported exit code ${code}; ${where}`);
    if (!failed) t.after(() => rmSync(workbench.runDir, { recursive: true, force: true }));
  },
);
