// Runs inside code-server's extension host (the workbench's `payload` URL): times the
// editor glob and grep on a 5,000-file source tree, then with a 100,000-file ignored tree
// moved in beside it as `node_modules/` (also in VS Code's default search.exclude) and as
// `vendor/` (ignored by the .gitignore only). Writes the samples as JSON to
// DOWNCITY_BENCH_RESULTS. Driver: bench/ignored-trees-host.ts.
import { readFileSync, renameSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Tool, ToolContext, ToolOutput } from "../../core/tools/types";
import { createEditorGlobTool, createEditorGrepTool } from "../../extension/tools/search-tools";

export interface IgnoredTreesSample {
  wallMs: number;
  /** CPU of the children reaped during the call (the ripgrep of findFiles or grep), from /proc/self/stat. */
  childCpuMs: number;
}

export interface IgnoredTreesResults {
  /** phase → measurement → samples. */
  samples: Record<string, Record<string, IgnoredTreesSample[]>>;
  /** phase → measurement → the answer's first line count and its last line (the notes). */
  answers: Record<string, Record<string, { lines: number; last: string }>>;
  rssMiB: number;
}

const RUNS = 9;

/** cutime + cstime of this process, in ms (clock ticks of 10 ms). */
function childCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}
const text = (out: ToolOutput) => out.content.map((p) => (p.type === "text" ? p.text : "")).join("");

async function ok(tool: Tool, args: unknown, ctx: ToolContext): Promise<string> {
  const out = await tool.execute(args as never, ctx);
  if (out.isError) throw new Error(`${tool.name}: ${text(out)}`);
  return text(out);
}

export async function run(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders![0]!;
  const root = realpathSync(folder.uri.fsPath);
  const ctx: ToolContext = { root, signal: new AbortController().signal };
  const glob = createEditorGlobTool(folder);
  const grep = createEditorGrepTool(vscode.env.appRoot);
  const cases: [string, Tool, unknown][] = [
    ["glob **/*.ts", glob, { pattern: "**/*.ts", path: "." }],
    ["glob **/f49*.ts (a full traversal)", glob, { pattern: "**/f49*.ts", path: "." }],
    ["grep needle", grep, { pattern: "needle", path: "." }],
  ];
  const results: IgnoredTreesResults = { samples: {}, answers: {}, rssMiB: 0 };
  const measure = async (phase: string) => {
    results.samples[phase] = {};
    results.answers[phase] = {};
    for (const [name, tool, args] of cases) {
      const answer = await ok(tool, args, ctx); // the warm-up
      const lines = answer.split("\n");
      results.answers[phase]![name] = { lines: lines.length, last: lines[lines.length - 1]! };
      const out: IgnoredTreesSample[] = [];
      for (let i = 0; i < RUNS; i++) {
        const cpu = childCpuMs();
        const start = process.hrtime.bigint();
        await ok(tool, args, ctx);
        out.push({ wallMs: Number(process.hrtime.bigint() - start) / 1e6, childCpuMs: childCpuMs() - cpu });
      }
      results.samples[phase]![name] = out;
    }
  };
  const parked = process.env.DOWNCITY_BENCH_PARKED!;
  await measure("source only");
  renameSync(parked, join(root, "node_modules"));
  await measure("+ node_modules/");
  renameSync(join(root, "node_modules"), join(root, "vendor"));
  await measure("+ vendor/ (.gitignore only)");
  renameSync(join(root, "vendor"), parked);
  results.rssMiB = Math.round(process.memoryUsage().rss / 1024 / 1024);
  writeFileSync(process.env.DOWNCITY_BENCH_RESULTS!, JSON.stringify(results));
}
