// Runs inside code-server's extension host (the workbench's `payload` URL, as the in-host
// tests): times the editor-backed tools against the core's on the opened 50,000-file
// folder and writes the samples as JSON to DOWNCITY_BENCH_RESULTS. Driver:
// bench/host/editor-tools-host.ts.
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import * as vscode from "vscode";
import { createEditFileTool } from "../../core/tools/node/edit-file";
import { createGlobTool } from "../../core/tools/node/glob";
import { createGrepTool } from "../../core/tools/node/grep";
import { findOnPath } from "../../core/tools/node/which";
import type { Tool, ToolContext, ToolOutput } from "../../core/tools/types";
import { createEditorTools } from "../../extension/tools";
import { callOf } from "../../extension/tools/proposals";
import { createEditorGlobTool, createEditorGrepTool } from "../../extension/tools/search-tools";

export interface HostBenchSample {
  wallMs: number;
  /** CPU of the children reaped during the call (ripgrep), from /proc/self/stat. */
  childCpuMs: number;
}
export interface HostBenchResults {
  appRoot: string;
  grepEngine: string;
  grepHits: number;
  globHits: number;
  samples: Record<string, HostBenchSample[]>;
  rssMiB: number;
}

const RUNS = 5;
const text = (out: ToolOutput) => out.content.map((p) => (p.type === "text" ? p.text : "")).join("");

/** cutime + cstime of this process, in ms (clock ticks of 10 ms). */
function childCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

async function sample(fn: () => Promise<unknown>): Promise<HostBenchSample> {
  const cpu = childCpuMs();
  const start = process.hrtime.bigint();
  await fn();
  return { wallMs: Number(process.hrtime.bigint() - start) / 1e6, childCpuMs: childCpuMs() - cpu };
}

/** One warm-up, then `runs` samples. */
async function samples(fn: () => Promise<unknown>, runs = RUNS): Promise<HostBenchSample[]> {
  await fn();
  const out: HostBenchSample[] = [];
  for (let i = 0; i < runs; i++) out.push(await sample(fn));
  return out;
}

async function ok(tool: Tool, args: unknown, ctx: ToolContext): Promise<string> {
  const out = await tool.execute(args as never, ctx);
  if (out.isError) throw new Error(`${tool.name}: ${text(out)}`);
  return text(out);
}

export async function run(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders![0]!;
  const root = realpathSync(folder.uri.fsPath);
  const ctx: ToolContext = { root, signal: new AbortController().signal };
  const s: Record<string, HostBenchSample[]> = {};

  const editorGrep = createEditorGrepTool(vscode.env.appRoot);
  const grepArgs = { pattern: "needle", path: "." };
  const hits = await ok(editorGrep, grepArgs, ctx);
  s.grepEditor = await samples(() => ok(editorGrep, grepArgs, ctx));
  const pathRg = findOnPath("rg");
  if (pathRg) s.grepCoreRg = await samples(() => ok(createGrepTool({ ripgrep: pathRg }), grepArgs, ctx));
  const js = createGrepTool({ ripgrep: false });
  // rg's threads print in any order: compare the lines as sets.
  const sorted = (t: string) => t.split("\n").sort().join("\n");
  if (sorted(await ok(js, grepArgs, ctx)) !== sorted(hits)) throw new Error("bench: the JS scan and ripgrep disagree");
  s.grepCoreJs = await samples(() => ok(js, grepArgs, ctx), Number(process.env.DOWNCITY_BENCH_JS_RUNS ?? 3));

  // A pattern only a full traversal answers (11 files), so both paths do all the work.
  const globArgs = { pattern: "**/f4999*.ts", path: "." };
  const editorGlob = createEditorGlobTool(folder);
  const coreGlob = createGlobTool();
  const globbed = await ok(editorGlob, globArgs, ctx);
  if (globbed !== (await ok(coreGlob, globArgs, ctx)))
    throw new Error(`bench: the editor and core globs disagree:\n${globbed}`);
  s.globEditor = await samples(() => ok(editorGlob, globArgs, ctx));
  s.globCore = await samples(() => ok(coreGlob, globArgs, ctx));

  // Accepted diff -> saved file: the real WorkspaceEdit and save of a 2,000-line file.
  const tools = createEditorTools({ folder, root, diagnosticsWaitMs: 0, diagnosticsQuietMs: 0 });
  const edit = tools.tools.find((t) => t.name === "edit_file")!;
  let n = 0;
  s.acceptToSaved = [];
  s.previewAcceptSave = [];
  for (let i = 0; i < 10; i++) {
    const c: ToolContext = { ...ctx, toolCallId: `bench-${++n}`, agentId: "default", sessionId: "bench" };
    const args = {
      path: "big.ts",
      edits: [{ oldText: `v1000 = ${n === 1 ? 1000 : `${n - 1}0000`};`, newText: `v1000 = ${n}0000;` }],
    };
    const total = await sample(async () => {
      await edit.preview!(args, c);
      const p = tools.proposals.get(callOf(c))!;
      p.accepted = p.text; // what Accept in the review records
      const accepted = await sample(() => ok(edit, args, c));
      if (i > 0) s.acceptToSaved!.push(accepted);
    });
    if (i > 0) s.previewAcceptSave.push(total);
    if (!readFileSync(`${root}/big.ts`, "utf8").includes(`v1000 = ${n}0000;`))
      throw new Error("bench: the accepted edit was not saved");
  }
  await tools.dispose();
  await vscode.commands.executeCommand("workbench.action.closeAllEditors");
  const core = createEditFileTool();
  let m = 0;
  s.coreEdit = await samples(
    () =>
      ok(
        core,
        {
          path: "big-core.ts",
          edits: [{ oldText: `v1000 = ${m === 0 ? 1000 : `${m}0000`};`, newText: `v1000 = ${++m}0000;` }],
        },
        ctx,
      ),
    9,
  );

  const results: HostBenchResults = {
    appRoot: vscode.env.appRoot,
    grepEngine: editorGrep.engine,
    grepHits: hits.split("\n").length,
    globHits: globbed.split("\n").length,
    samples: s,
    rssMiB: Math.round(process.memoryUsage().rss / 1024 / 1024),
  };
  writeFileSync(process.env.DOWNCITY_BENCH_RESULTS!, JSON.stringify(results));
}
