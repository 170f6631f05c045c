/**
 * Issue 26: what an ignored tree beside the source costs the editor glob and grep, inside
 * a real VS Code. Starts code-server on a generated 5,000-file source tree and runs
 * bench/host/ignored-trees.payload.ts in its extension host, which measures, in one run:
 * the source alone, then with a 100,000-file ignored tree moved in as `node_modules/`
 * (ignored by .gitignore and VS Code's default search.exclude) and as `vendor/` (by the
 * .gitignore alone). Prints medians of 15 rounds, each moving the tree through the three
 * places (wall time, the CPU of the ripgrep processes the call ran and the extension host's
 * own CPU, which the machine's load does not inflate), and the ratios to the source alone. The workspace sets files.watcherExclude for the moved tree.
 *   node --import tsx bench/host/ignored-trees-host.ts
 * DOWNCITY_BENCH_TREES=<dir>: keep the generated trees there and reuse them next time.
 * DOWNCITY_BENCH_ROUNDS=<n>: rounds to measure (default 15).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { PROJECT_ROOT, remoteUri, workbenchUrl } from "../../test/support/workbench/code-server";
import { gotoWorkbench, missingVsCode, openWorkbench } from "../../test/support/workbench/open-workbench";
import { withTimeout } from "../../test/support/with-timeout";
import type { IgnoredTreesResults } from "./ignored-trees.payload";
import { IGNORED_FILES, SOURCE_FILES, makeIgnoredTree, makeSourceTree } from "../ignored-trees";
import { median, table } from "../stats";

const RUN_TIMEOUT_MS = 30 * 60_000;

async function main() {
  const missing = missingVsCode();
  if (missing) throw new Error(missing);
  const base = realpathSync(mkdtempSync(join(tmpdir(), "downcity-bench-ignored-")));
  const trees = process.env.DOWNCITY_BENCH_TREES ? realpathSync(process.env.DOWNCITY_BENCH_TREES) : base;
  try {
    const ws = join(trees, "ws");
    const parked = join(trees, "parked");
    if (!existsSync(join(trees, "complete"))) {
      const t0 = Date.now();
      rmSync(ws, { recursive: true, force: true });
      rmSync(parked, { recursive: true, force: true });
      mkdirSync(ws, { recursive: true });
      makeSourceTree(ws);
      makeIgnoredTree(parked);
      writeFileSync(join(trees, "complete"), "");
      console.error(`trees of ${SOURCE_FILES} + ${IGNORED_FILES} files in ${Date.now() - t0} ms`);
    }
    // The file watcher would crawl the tree each time the payload moves it in: keep that out of the timings.
    mkdirSync(join(ws, ".vscode"), { recursive: true });
    writeFileSync(
      join(ws, ".vscode", "settings.json"),
      JSON.stringify({ "files.watcherExclude": { "**/node_modules/**": true, "**/vendor/**": true } }),
    );
    const payload = join(base, "payload");
    await build({
      entryPoints: [join(PROJECT_ROOT, "bench", "host", "ignored-trees.payload.ts")],
      outdir: payload,
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      logLevel: "warning",
      external: ["vscode", "@mongodb-js/zstd"],
    });
    const resultsFile = join(base, "results.json");
    const loadBefore = loadavg()[0]!;
    const workbench = await openWorkbench(join(base, "out"), {
      env: {
        DOWNCITY_BENCH_RESULTS: resultsFile,
        DOWNCITY_BENCH_PARKED: parked,
        ...(process.env.DOWNCITY_BENCH_ROUNDS ? { DOWNCITY_BENCH_ROUNDS: process.env.DOWNCITY_BENCH_ROUNDS } : {}),
      },
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
      await gotoWorkbench(
        page,
        workbenchUrl(server, ws, [
          ["extensionDevelopmentPath", remoteUri(server, PROJECT_ROOT)],
          ["extensionTestsPath", remoteUri(server, join(payload, "ignored-trees.payload.js"))],
        ]),
      );
      code = await withTimeout(exited, RUN_TIMEOUT_MS, "the benchmark payload to finish (window.codeAutomationExit)");
    } finally {
      await workbench.close();
    }
    if (code !== 0 || !existsSync(resultsFile))
      throw new Error(`the payload failed (exit code ${code}); logs: ${join(base, "out", "run")}`);
    report(JSON.parse(readFileSync(resultsFile, "utf8")) as IgnoredTreesResults, loadBefore, loadavg()[0]!);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function report(r: IgnoredTreesResults, loadBefore: number, loadAfter: number) {
  const phases = Object.keys(r.samples);
  const alone = phases[0];
  const rows: (string | number)[][] = [];
  const wall = (phase: string, name: string) => median(r.samples[phase]![name]!.map((s) => s.wallMs));
  const cpu = (phase: string, name: string) => median(r.samples[phase]![name]!.map((s) => s.childCpuMs));
  const host = (phase: string, name: string) => median(r.samples[phase]![name]!.map((s) => s.hostCpuMs));
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : "n/a");
  const n = r.samples[alone!]![Object.keys(r.samples[alone!]!)[0]!]!.length;
  for (const name of Object.keys(r.samples[alone!]!)) {
    for (const phase of phases) {
      const [w, c, h] = [wall(phase, name), cpu(phase, name), host(phase, name)];
      rows.push([
        `${name}, ${phase}`,
        `${w.toFixed(1)} ms`,
        ratio(w, wall(alone!, name)),
        `${c.toFixed(0)} ms`,
        ratio(c, cpu(alone!, name)),
        `${h.toFixed(1)} ms`,
        ratio(h, host(alone!, name)),
        r.answers[phase]![name]!.lines,
      ]);
    }
  }
  rows.push(["extension host RSS after", `${r.rssMiB} MiB`, "", "", "", "", "", ""]);
  rows.push([
    "load average (1 min) before / after",
    `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`,
    "",
    "",
    "",
    "",
    "",
    "",
  ]);
  table(
    [
      `measurement (median of ${n}, rounds interleaving the phases)`,
      "wall",
      "÷ source only",
      "ripgrep CPU",
      "÷ source only",
      "extension host CPU",
      "÷ source only",
      "answer lines",
    ],
    rows,
  );
  for (const phase of phases)
    for (const [name, a] of Object.entries(r.answers[phase]!))
      console.log(`${phase} / ${name}: last line: ${a.last.slice(0, 300)}`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
