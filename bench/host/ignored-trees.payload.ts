// Runs inside code-server's extension host (the workbench's `payload` URL): times the
// editor glob and grep on a 5,000-file source tree, then with a 100,000-file ignored tree
// moved in beside it as `node_modules/` (also in VS Code's default search.exclude) and as
// `vendor/` (ignored by the .gitignore only). Writes the samples as JSON to
// DOWNCITY_BENCH_RESULTS. Driver: bench/host/ignored-trees-host.ts.
import { readFileSync, renameSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { Tool, ToolContext, ToolOutput } from "../../core/tools/types";
import { createGrepTool } from "../../core/tools/node/grep";
import { editorExcludes } from "../../extension/tools/excludes";
import { GitignoreDiscovery } from "../../extension/tools/gitignore-discovery";
import { createEditorGlobTool, createEditorGrepTool, findBundledRipgrep } from "../../extension/tools/search-tools";

export interface IgnoredTreesSample {
  wallMs: number;
  /** CPU of the extension host itself during the call (process.cpuUsage). */
  hostCpuMs: number;
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

/** Rounds measured (DOWNCITY_BENCH_ROUNDS; more of them steady the medians on a loaded machine). */
const RUNS = Number(process.env.DOWNCITY_BENCH_ROUNDS ?? 15);

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
  // As createEditorTools makes them: one kept discovery of the nested .gitignore files for both.
  const discovery = new GitignoreDiscovery(folder);
  const glob = createEditorGlobTool(folder, { discovery });
  const grep = createEditorGrepTool(vscode.env.appRoot, folder, { discovery });
  const uncached = createEditorGlobTool(folder);
  const core = createGrepTool({ ripgrep: findBundledRipgrep(vscode.env.appRoot) ?? false });
  const step = (name: string, fn: () => Promise<unknown> | unknown): Tool => ({
    ...grep,
    name,
    execute: async () => ({ content: [{ type: "text", text: String(await fn()) }] }),
  });
  const cases: [string, Tool, unknown][] = [
    ["glob **/*.ts", glob, { pattern: "**/*.ts", path: "." }],
    ["glob **/f49*.ts (a full traversal)", glob, { pattern: "**/f49*.ts", path: "." }],
    // Last round's glob: the nested .gitignore files looked for on every call (one more findFiles).
    ["glob **/f49*.ts, discovery not kept", uncached, { pattern: "**/f49*.ts", path: "." }],
    ["grep needle", grep, { pattern: "needle", path: "." }],
    // The parts of that grep, to see where its time goes.
    ["grep's parts: editorExcludes", step("x", () => editorExcludes(folder, root, { discovery }).then(() => "")), {}],
    ["grep's parts: ripgrep", step("r", () => core.search({ pattern: "needle", path: "." }, ctx, {}).then(text)), {}],
    [
      "grep's parts: the note (skippedBelow)",
      step("n", async () => (await editorExcludes(folder, root, { discovery })).skippedBelow(".").join()),
      {},
    ],
  ];
  const results: IgnoredTreesResults = { samples: {}, answers: {}, rssMiB: 0 };
  const parked = process.env.DOWNCITY_BENCH_PARKED!;
  // Where the big tree is in each phase (undefined: parked outside the workspace).
  const phases: [string, string | undefined][] = [
    ["source only", undefined],
    ["+ node_modules/", "node_modules"],
    ["+ vendor/ (.gitignore only)", "vendor"],
  ];
  let at = parked;
  const moveTo = (name: string | undefined) => {
    const to = name === undefined ? parked : join(root, name);
    if (to !== at) renameSync(at, to);
    at = to;
  };
  const sample = async (tool: Tool, args: unknown): Promise<IgnoredTreesSample> => {
    const cpu = childCpuMs();
    const host = process.cpuUsage();
    const start = process.hrtime.bigint();
    await ok(tool, args, ctx);
    const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
    const used = process.cpuUsage(host);
    return { wallMs, hostCpuMs: (used.user + used.system) / 1000, childCpuMs: childCpuMs() - cpu };
  };
  // Rounds interleave the phases, so a change in the machine's load falls on all of them alike.
  for (let round = -1; round < RUNS; round++) {
    for (const [phase, name] of phases) {
      moveTo(name);
      results.samples[phase] ??= {};
      results.answers[phase] ??= {};
      for (const [label, tool, args] of cases) {
        const answer = await ok(tool, args, ctx); // the warm-up after the move
        if (round < 0) {
          const lines = answer.split("\n");
          results.answers[phase]![label] = { lines: lines.length, last: lines[lines.length - 1]! };
          continue;
        }
        (results.samples[phase]![label] ??= []).push(await sample(tool, args));
      }
    }
  }
  moveTo(undefined);
  discovery.dispose();
  results.rssMiB = Math.round(process.memoryUsage().rss / 1024 / 1024);
  writeFileSync(process.env.DOWNCITY_BENCH_RESULTS!, JSON.stringify(results));
}
