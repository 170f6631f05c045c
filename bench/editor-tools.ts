/**
 * The editor-backed tools against the core's, in one run: grep over a 50,000-file
 * workspace through VS Code's bundled ripgrep (the editor path) vs the core's engines
 * (ripgrep on PATH, the JavaScript scan), glob through the core walk, and the time from
 * an accepted diff to the saved file (the editor path's WorkspaceEdit + save through the
 * `vscode` fake on real files, vs the core's atomic fsync'd write).
 * `workspace.findFiles` (the editor's glob) exists only inside VS Code: not measured here.
 *   node --import tsx --require ./test/support/vscode-fake/register.cjs bench/editor-tools.ts
 * VS Code's app root (for its ripgrep): DOWNCITY_VSCODE_APPROOT, else the harness's code-server.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as vscode from "vscode";
import { createEditFileTool } from "../core/tools/node/edit-file";
import { createGlobTool } from "../core/tools/node/glob";
import { createGrepTool } from "../core/tools/node/grep";
import { findOnPath } from "../core/tools/node/which";
import type { ToolContext } from "../core/tools/types";
import { createEditorTools } from "../extension/tools";
import { callOf } from "../extension/tools/proposals";
import { createEditorGrepTool } from "../extension/tools/search-tools";
import { installEditor } from "../test/support/vscode-fake/editor";
import { TREE_FILES as FILES, bigFileText, makeTree } from "./editor-tree";
import { median, table, timeMsAsync } from "./stats";

const RUNS = 5;

/** Median of `runs` timings after one warm-up. */
async function time(fn: () => Promise<unknown>, runs = RUNS): Promise<number> {
  await fn();
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await timeMsAsync(fn));
  return median(samples);
}

function appRoot(): string | undefined {
  const candidates = [
    process.env.DOWNCITY_VSCODE_APPROOT,
    path.join(__dirname, "..", "..", "harness", ".e2e", "code-server", "node_modules", "code-server", "lib", "vscode"),
    path.join(__dirname, "..", ".e2e", "code-server", "node_modules", "code-server", "lib", "vscode"),
  ];
  return candidates.find((c) => c && existsSync(c));
}

async function main() {
  const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), "downcity-bench-editor-")));
  const rows: (string | number)[][] = [];
  try {
    const root = path.join(base, "ws");
    mkdirSync(root);
    const t0 = Date.now();
    makeTree(root);
    console.error(`tree of ${FILES} files in ${Date.now() - t0} ms`);
    const ctx: ToolContext = { root, signal: new AbortController().signal };
    const hits = (out: { content: { type: string; text?: string }[] }) =>
      (out.content[0]?.text ?? "").split("\n").length;

    const vsRoot = appRoot();
    const editorGrep = createEditorGrepTool(vsRoot);
    const pathRg = findOnPath("rg");
    const grepArgs = { pattern: "needle", path: "." };
    const results: Record<string, number> = {};
    if (vsRoot && editorGrep.engine !== "PATH or JavaScript") {
      results.editor = await time(() => editorGrep.execute(grepArgs, ctx));
      rows.push([
        `grep, editor path (VS Code's bundled rg), ${hits(await editorGrep.execute(grepArgs, ctx))} hits`,
        `${results.editor.toFixed(0)} ms`,
      ]);
    } else rows.push(["grep, editor path (VS Code's bundled rg)", "no VS Code app root found"]);
    if (pathRg) {
      const core = createGrepTool({ ripgrep: pathRg });
      results.rg = await time(() => core.execute(grepArgs, ctx));
      rows.push([`grep, core path (rg on PATH)`, `${results.rg.toFixed(0)} ms`]);
    }
    const js = createGrepTool({ ripgrep: false });
    results.js = await time(() => js.execute(grepArgs, ctx), 3);
    rows.push(["grep, core path (JavaScript scan)", `${results.js.toFixed(0)} ms`]);
    if (results.editor && results.js)
      rows.push(["  ratio JS scan ÷ editor path", (results.js / results.editor).toFixed(1)]);
    if (results.editor && results.rg)
      rows.push(["  ratio editor path ÷ rg on PATH (same engine ≈ 1)", (results.editor / results.rg).toFixed(2)]);

    const glob = createGlobTool();
    const globAll = await time(() => glob.execute({ pattern: "**/f1*.ts", path: "." }, ctx), 3);
    rows.push([`glob \`**/f1*.ts\`, core path (walk honouring .gitignore)`, `${globAll.toFixed(0)} ms`]);
    rows.push(["glob, editor path (workspace.findFiles)", "only inside VS Code: not measured"]);

    // Accepted diff → saved file, 2,000-line file, one edit in the middle.
    const editRoot = path.join(base, "edit");
    mkdirSync(editRoot);
    const file = path.join(editRoot, "big.ts");
    const editor = installEditor(editRoot);
    const tools = createEditorTools({
      folder: vscode.workspace.workspaceFolders![0]!,
      root: editRoot,
      diagnosticsWaitMs: 0,
      diagnosticsQuietMs: 0,
      appRoot: "",
    });
    const edit = tools.tools.find((t) => t.name === "edit_file")!;
    let n = 0;
    const editorSave = await time(async () => {
      writeFileSync(file, bigFileText());
      const c: ToolContext = {
        root: editRoot,
        signal: ctx.signal,
        toolCallId: `b${++n}`,
        agentId: "default",
        sessionId: "bench",
      };
      const args = { path: "big.ts", edits: [{ oldText: "v1000 = 1000;", newText: `v1000 = ${n};` }] };
      await edit.preview!(args, c);
      const p = tools.proposals.get(callOf(c))!;
      p.accepted = p.text; // what Accept in the review records
      const t = process.hrtime.bigint();
      const out = await edit.execute(args, c);
      if (out.isError) throw new Error(JSON.stringify(out.content));
      samplesAccept.push(Number(process.hrtime.bigint() - t) / 1e6);
    }, 9);
    if (!readFileSync(file, "utf8").includes(`v1000 = ${n};`)) throw new Error("bench: edit not saved");
    const core = createEditFileTool();
    const coreSave = await time(async () => {
      writeFileSync(file, bigFileText());
      await core.execute(
        { path: "big.ts", edits: [{ oldText: "v1000 = 1000;", newText: "v1000 = 1;" }] },
        { root: editRoot, signal: ctx.signal },
      );
    }, 9);
    rows.push([
      "accepted diff → saved file, editor path (checks, WorkspaceEdit, save; fake editor, no fsync)",
      `${median(samplesAccept).toFixed(2)} ms`,
    ]);
    rows.push(["  preview + accept + save, editor path", `${editorSave.toFixed(2)} ms`]);
    rows.push(["edit → saved file, core path (atomic write + fsync)", `${coreSave.toFixed(2)} ms`]);
    await tools.dispose();
    editor.dispose();
    rows.push(["peak RSS", `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`]);
    table(["measurement", "result"], rows);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

const samplesAccept: number[] = [];
main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
