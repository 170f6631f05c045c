/**
 * Cost of the Node tools on a generated workspace: glob and the JS grep over trees of
 * 2,500 and 10,000 files (with nested .gitignore files), read_file of a range at the head
 * of a small and of a 64 MiB file, and the sandbox rule per call. Prints medians and
 * peak RSS; ratios come from the same run.
 *   node --import tsx bench/tools-search.ts
 */
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { ToolRegistry, resolveInsideRoot, type ToolContext } from "../core/tools";
import { createNodeTools } from "../core/tools/node";

const RUNS = 7;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(fn: () => Promise<unknown>, runs = RUNS): Promise<number> {
  await fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(samples);
}

function makeTree(root: string, files: number) {
  const perDir = 50;
  const line = "export const value = compute(alpha, beta, gamma); // filler text for the scan\n";
  writeFileSync(path.join(root, ".gitignore"), "*.log\nbuild/\n");
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, "src", `m${Math.floor(i / perDir / 10)}`, `d${Math.floor(i / perDir)}`);
    if (i % perDir === 0) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, ".gitignore"), "*.tmp.ts\n");
      writeFileSync(path.join(dir, "ignored.log"), line.repeat(25));
    }
    const body = line.repeat(25) + (i % 1000 === 0 ? "const needle = true;\n" : "");
    writeFileSync(path.join(dir, `f${i}.ts`), body);
  }
}

async function main() {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "downcity-bench-tools-")));
  try {
    const registry = new ToolRegistry(createNodeTools({ ripgrep: false }));
    const rows: [string, string][] = [];
    const results: Record<string, number> = {};
    for (const files of [2_500, 10_000]) {
      const root = path.join(base, `ws${files}`);
      mkdirSync(root);
      makeTree(root, files);
      const ctx: ToolContext = { root, signal: new AbortController().signal };
      const glob = await time(() => registry.run("glob", { pattern: "**/f1.ts" }, ctx));
      const grep = await time(() => registry.run("grep", { pattern: "needle" }, ctx));
      const out = await registry.run("grep", { pattern: "needle" }, ctx);
      const hits = (out.content[0] as { text: string }).text.split("\n").length;
      results[`glob${files}`] = glob;
      results[`grep${files}`] = grep;
      rows.push([`glob \`**/f1.ts\` (full walk), ${files.toLocaleString("en-US")} files`, `${glob.toFixed(1)} ms`]);
      rows.push([`grep (JS scan), ${files.toLocaleString("en-US")} files, ${hits} hits`, `${grep.toFixed(1)} ms`]);
    }
    rows.push(["glob 10k ÷ 2.5k (linear = 4)", (results.glob10000! / results.glob2500!).toFixed(2)]);
    rows.push(["grep 10k ÷ 2.5k (linear = 4)", (results.grep10000! / results.grep2500!).toFixed(2)]);

    const root = path.join(base, "read");
    mkdirSync(root);
    const row = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789\n";
    writeFileSync(path.join(root, "small.txt"), row.repeat(200));
    // Written in 1 MiB chunks so the bench's own data does not dominate peak RSS.
    const chunk = row.repeat(Math.floor((1024 * 1024) / row.length));
    for (let i = 0; i < 64; i++) appendFileSync(path.join(root, "big.txt"), chunk);
    const ctx: ToolContext = { root, signal: new AbortController().signal };
    const small = await time(() => registry.run("read_file", { path: "small.txt", startLine: 1, endLine: 100 }, ctx));
    const bigHead = await time(() => registry.run("read_file", { path: "big.txt", startLine: 1, endLine: 100 }, ctx));
    const bigTail = await time(
      () => registry.run("read_file", { path: "big.txt", startLine: 840_000, endLine: 840_100 }, ctx),
      3,
    );
    const deep = await registry.run("read_file", { path: "big.txt", startLine: 840_000, endLine: 840_100 }, ctx);
    if (deep.isError) throw new Error(`bench setup: ${JSON.stringify(deep.content)}`);
    rows.push(["read_file lines 1-100, 15 KiB file", `${small.toFixed(2)} ms`]);
    rows.push(["read_file lines 1-100, 64 MiB file", `${bigHead.toFixed(2)} ms`]);
    rows.push(["  ratio 64 MiB ÷ 15 KiB (streaming stops early ≈ 1)", (bigHead / small).toFixed(2)]);
    rows.push(["read_file lines 840,000-840,100 of the 64 MiB file (full scan)", `${bigTail.toFixed(1)} ms`]);

    const n = 2_000;
    const resolve = await time(async () => {
      for (let i = 0; i < n; i++) await resolveInsideRoot(root, `new/dir/file${i}.txt`, { forWrite: true });
    }, 3);
    rows.push(["resolveInsideRoot, not-yet-existing write path (per call)", `${((resolve / n) * 1000).toFixed(1)} µs`]);
    rows.push(["peak RSS", `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`]);

    console.log("| measurement | result |\n|---|---|");
    for (const [k, v] of rows) console.log(`| ${k} | ${v} |`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
