// Issue 26 in real VS Code: seeds a folder with a 20,000-file ignored tree, bundles
// test/host/index.ts with test/host/ignored/*.host.ts (only those) and runs them in
// code-server's extension host, reporting each as a subtest here (the mechanism of
// host-tests.test.ts). On a failure, test/.tmp/e2e/ignored-host/ keeps the screenshot and logs.
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { build } from "esbuild";
import { PROJECT_ROOT, remoteUri, workbenchUrl } from "../support/workbench/code-server";
import { parseHostResults } from "../host/results";
import { gotoWorkbench, missingVsCode, openWorkbench, outputDir, withTimeout } from "./helpers";

const RUN_TIMEOUT_MS = 300_000;
const IGNORED_FILES = 20_000;

function write(root: string, rel: string, text: string) {
  mkdirSync(dirname(join(root, rel)), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** build/ (ignored): 200 packages of 100 files, one needle; beside it a small tree with a nested .gitignore. */
function seed(ws: string) {
  write(ws, ".gitignore", "build/\n*.log\n*.tmp\n");
  for (let i = 0; i < IGNORED_FILES; i++) {
    const dir = join(ws, "build", `pkg${Math.floor(i / 100)}`, "lib");
    if (i % 100 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `m${i % 100}.ts`), "export const value = 1;\n");
  }
  write(ws, "build/pkg7/lib/needle.ts", "export const needle = 7;\n");
  write(ws, "src/a.ts", "export const needle = 1;\n");
  write(ws, "src/build", "a file named like the ignored folder: kept\n");
  write(ws, "src/x.log", "ignored by *.log\n");
  write(ws, "pkg/.gitignore", "gen/\n!keep.log\n");
  write(ws, "pkg/keep.log", "re-included\n");
  write(ws, "pkg/gen/g.ts", "export const needle = 0;\n");
  // Ignored by the root's `*.tmp`, until a nested .gitignore the in-host test writes re-includes them.
  write(ws, "src/x.tmp", "x\n");
  write(ws, "lib/y.tmp", "y\n");
}

async function buildTests(outdir: string): Promise<string> {
  const dir = join(PROJECT_ROOT, "test", "host", "ignored");
  await build({
    entryPoints: [
      join(PROJECT_ROOT, "test", "host", "index.ts"),
      ...readdirSync(dir)
        .filter((f) => f.endsWith(".host.ts"))
        .map((f) => join(dir, f)),
    ],
    outdir,
    entryNames: "[name]",
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    sourcemap: "inline",
    logLevel: "warning",
    external: ["vscode", "mocha", "@mongodb-js/zstd"],
    // mocha resolves from the project's node_modules, as for test/host.
    nodePaths: [join(PROJECT_ROOT, "node_modules")],
  });
  return join(outdir, "index.js");
}

test(
  "ignored trees in code-server's extension host (issue 26)",
  { skip: missingVsCode(), timeout: RUN_TIMEOUT_MS + 120_000 },
  async (t) => {
    const out = outputDir("ignored-host");
    const ws = join(out, "workspace");
    seed(ws);
    const resultsFile = join(out, "results.ndjson");
    const testsModule = await buildTests(join(out, "host-tests"));
    const workbench = await openWorkbench(out, {
      env: { DOWNCITY_HOST_RESULTS: resultsFile, DOWNCITY_IGNORED_FILES: String(IGNORED_FILES) },
    });
    t.after(() => workbench.close());
    const { page, server } = workbench;
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
    let code: number | undefined;
    let failure: unknown;
    try {
      await gotoWorkbench(
        page,
        workbenchUrl(server, ws, [
          ["extensionDevelopmentPath", remoteUri(server, PROJECT_ROOT)],
          ["extensionTestsPath", remoteUri(server, testsModule)],
        ]),
      );
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
    await workbench.screenshot("after-run");
    const records = existsSync(resultsFile) ? parseHostResults(readFileSync(resultsFile, "utf8")) : [];
    for (const record of records) {
      if (record.type !== "test") continue;
      await t.test(record.title, { skip: record.skipped === true }, () => {
        if (!record.ok) throw new Error(record.error ?? "failed");
      });
    }
    const where = `artefacts: ${out} (after-run.png, exthost-console.log, run/code-server.log)`;
    if (failure) throw new Error(`${(failure as Error).message}\n${where}`);
    if (records.filter((r) => r.type === "test").length === 0) throw new Error(`no in-host test ran; ${where}`);
    if (code !== 0) throw new Error(`the extension host reported exit code ${code}; ${where}`);
    if (records.every((r) => r.type !== "test" || r.ok)) t.after(() => rmSync(ws, { recursive: true, force: true }));
  },
);
