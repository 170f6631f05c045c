/**
 * The editor-backed tools measured inside a real VS Code: starts code-server on a generated
 * 50,000-file folder and runs bench/host/editor-tools.payload.ts in its extension host
 * (the workbench's `payload` URL, as the in-host tests), then prints medians and ratios of
 * that one run: grep through VS Code's ripgrep vs the core's engines, glob through
 * workspace.findFiles vs the core's walk, and an accepted diff to the saved file through the
 * real WorkspaceEdit + save vs the core's atomic write.
 *   node --import tsx bench/host/editor-tools-host.ts
 * DOWNCITY_BENCH_JS_RUNS: samples of the JavaScript scan (default 3; it is the slow one);
 * DOWNCITY_BENCH_FILES: the tree's size (default 50,000).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { PROJECT_ROOT, remoteUri, workbenchUrl } from "../../test/support/workbench/code-server";
import { gotoWorkbench, missingVsCode, openWorkbench } from "../../test/support/workbench/open-workbench";
import { withTimeout } from "../../test/support/with-timeout";
import { TREE_FILES, bigFileText, makeTree } from "../editor-tree";
import type { HostBenchResults, HostBenchSample } from "./editor-tools.payload";
import { median, table } from "../stats";

const RUN_TIMEOUT_MS = 20 * 60_000;

async function buildPayload(outdir: string): Promise<string> {
  await build({
    entryPoints: [join(PROJECT_ROOT, "bench", "host", "editor-tools.payload.ts")],
    outdir,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "warning",
    external: ["vscode", "@mongodb-js/zstd"],
  });
  return join(outdir, "editor-tools.payload.js");
}

async function main() {
  const missing = missingVsCode();
  if (missing) throw new Error(missing);
  const base = realpathSync(mkdtempSync(join(tmpdir(), "downcity-bench-host-")));
  try {
    const ws = join(base, "ws");
    mkdirSync(ws);
    const t0 = Date.now();
    const files = Number(process.env.DOWNCITY_BENCH_FILES ?? TREE_FILES);
    makeTree(ws, files);
    writeFileSync(join(ws, "big.ts"), bigFileText());
    writeFileSync(join(ws, "big-core.ts"), bigFileText());
    console.error(`tree of ${files} files in ${Date.now() - t0} ms`);
    const payload = await buildPayload(join(base, "payload"));
    const resultsFile = join(base, "results.json");
    const loadBefore = loadavg()[0]!;
    const workbench = await openWorkbench(join(base, "out"), {
      env: { DOWNCITY_BENCH_RESULTS: resultsFile, DOWNCITY_BENCH_JS_RUNS: process.env.DOWNCITY_BENCH_JS_RUNS ?? "3" },
    });
    let code: number;
    try {
      const { page, server } = workbench;
      let exit!: (code: number) => void;
      const exited = new Promise<number>((ok) => (exit = ok));
      await page.exposeFunction("codeAutomationExit", (c: number) => exit(c));
      await page.exposeFunction("codeAutomationLog", (type: string, args: unknown) => {
        if (type === "error") console.error("[exthost]", JSON.stringify(args));
      });
      const started = Date.now();
      await gotoWorkbench(
        page,
        workbenchUrl(server, ws, [
          ["extensionDevelopmentPath", remoteUri(server, PROJECT_ROOT)],
          ["extensionTestsPath", remoteUri(server, payload)],
        ]),
      );
      code = await withTimeout(exited, RUN_TIMEOUT_MS, "the benchmark payload to finish (window.codeAutomationExit)");
      console.error(`payload ran in ${((Date.now() - started) / 1000).toFixed(0)} s (workbench start included)`);
    } finally {
      await workbench.close();
    }
    if (code !== 0 || !existsSync(resultsFile))
      throw new Error(`the payload failed (exit code ${code}); logs: ${join(base, "out", "run")}`);
    report(JSON.parse(readFileSync(resultsFile, "utf8")) as HostBenchResults, loadBefore, loadavg()[0]!);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function report(r: HostBenchResults, loadBefore: number, loadAfter: number) {
  const wall = (k: string) =>
    r.samples[k]?.length ? median(r.samples[k]!.map((x: HostBenchSample) => x.wallMs)) : undefined;
  const cpu = (k: string) =>
    r.samples[k]?.length ? median(r.samples[k]!.map((x: HostBenchSample) => x.childCpuMs)) : undefined;
  const ms = (v: number | undefined, d = 0) => (v === undefined ? "not measured" : `${v.toFixed(d)} ms`);
  const ratio = (a?: number, b?: number) => (a && b ? (a / b).toFixed(2) : "n/a");
  const n = (k: string) => r.samples[k]?.length ?? 0;
  const rows: (string | number)[][] = [
    [
      `grep, editor path (VS Code's rg, in the extension host), ${r.grepHits} hits, median of ${n("grepEditor")}`,
      `${ms(wall("grepEditor"))} (rg CPU ${ms(cpu("grepEditor"))})`,
    ],
    [`grep, core path (rg on PATH)`, `${ms(wall("grepCoreRg"))} (rg CPU ${ms(cpu("grepCoreRg"))})`],
    [`grep, core path (JavaScript scan), median of ${n("grepCoreJs")}`, ms(wall("grepCoreJs"))],
    ["  ratio JS scan ÷ editor path", ratio(wall("grepCoreJs"), wall("grepEditor"))],
    ["  ratio editor path ÷ rg on PATH", ratio(wall("grepEditor"), wall("grepCoreRg"))],
    [
      `glob \`**/f4999*.ts\` (${r.globHits} files, a full traversal), editor path (workspace.findFiles + exact check)`,
      ms(wall("globEditor")),
    ],
    ["glob, core path (walk honouring .gitignore)", ms(wall("globCore"))],
    ["  ratio core ÷ editor path", ratio(wall("globCore"), wall("globEditor"))],
    [
      `accepted diff → saved file, editor path (real WorkspaceEdit + save), 2,000 lines, median of ${n("acceptToSaved")}`,
      ms(wall("acceptToSaved"), 1),
    ],
    ["  preview + accept + save, editor path", ms(wall("previewAcceptSave"), 1)],
    ["edit → saved file, core path (atomic write + fsync)", ms(wall("coreEdit"), 1)],
    ["  ratio editor ÷ core", ratio(wall("acceptToSaved"), wall("coreEdit"))],
    ["extension host RSS after", `${r.rssMiB} MiB`],
    ["load average (1 min) before / after", `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`],
  ];
  console.log(`editor grep engine: ${r.grepEngine}`);
  table(["measurement", "result"], rows);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
