import { existsSync } from "node:fs";
import * as path from "node:path";
import * as vscode from "vscode";
import { GLOB, GREP, type GlobParams, type GrepParams } from "../../core/tools/definitions";
import { ToolError } from "../../core/tools/errors";
import { GLOB_MAX_RESULTS, checkGlobPattern } from "../../core/tools/node/glob";
import { createGrepTool } from "../../core/tools/node/grep";
import { textOutput, type Tool } from "../../core/tools/types";
import { tokenFor } from "./cancellation";
import { editorExcludes } from "./excludes";
import { relativeToRoot, refuseUri, resolveToolPath } from "./paths";

/**
 * glob through `workspace.findFiles`, leaving out what the user excludes in the editor
 * (files.exclude, search.exclude) and what the core's glob leaves out (.gitignore files,
 * .git/ and .downcity/): see `editorExcludes`.
 */
export function createEditorGlobTool(folder: vscode.WorkspaceFolder): Tool<GlobParams> {
  return {
    ...GLOB,
    async execute(args, ctx) {
      const pattern = checkGlobPattern(args.pattern);
      refuseUri(pattern);
      const base = await resolveToolPath(ctx.root, args.path, false);
      const stat = await Promise.resolve(vscode.workspace.fs.stat(base.uri)).catch(() => undefined);
      if (!stat) throw new ToolError(`${base.shown}: no such file or directory`);
      if (!(stat.type & vscode.FileType.Directory)) throw new ToolError(`${base.shown} is not a directory`);
      const excludes = editorExcludes(folder, ctx.root);
      // findFiles matches the exclude against paths relative to the include's base: make the
      // base the folder, so settings globs (`src/gen`, `**/out`) mean what they mean in the editor.
      const include = /[*?[\]{}!]/.test(base.shown)
        ? new vscode.RelativePattern(base.uri, pattern) // glob characters in the path: left to the exact check
        : new vscode.RelativePattern(vscode.Uri.file(ctx.root), base.shown === "." ? pattern : `${base.shown}/${pattern}`);
      const kept = (uris: vscode.Uri[]) => {
        const out: string[] = [];
        for (const uri of uris) {
          const rel = relativeToRoot(ctx.root, uri);
          if (rel !== undefined && excludes.keeps(rel)) out.push(rel);
        }
        return out;
      };
      let uris = await findFiles(include, excludes.glob, GLOB_MAX_RESULTS + 1, ctx.signal);
      let found = kept(uris);
      // The cap was reached before the exact check dropped some: more may match, so ask without it.
      if (uris.length > GLOB_MAX_RESULTS && found.length <= GLOB_MAX_RESULTS) {
        uris = await findFiles(include, excludes.glob, undefined, ctx.signal);
        found = kept(uris);
      }
      if (found.length === 0) return textOutput(`no files match ${args.pattern} in ${base.shown}/`);
      const more = found.length > GLOB_MAX_RESULTS;
      found.sort();
      const shown = found.slice(0, GLOB_MAX_RESULTS);
      const note = more
        ? `\n[more than ${GLOB_MAX_RESULTS} files match; showing the first ${GLOB_MAX_RESULTS}. Narrow the pattern or the path]`
        : "";
      return textOutput(shown.join("\n") + note, { truncated: more });
    },
  };
}

async function findFiles(include: vscode.RelativePattern, exclude: string, max: number | undefined, signal: AbortSignal): Promise<vscode.Uri[]> {
  const cancel = tokenFor(signal);
  try {
    return await vscode.workspace.findFiles(include, exclude, max, cancel.token);
  } finally {
    cancel.dispose();
    signal.throwIfAborted();
  }
}

/** The ripgrep VS Code ships, under its app root (the layout differs between builds). */
export function findBundledRipgrep(appRoot: string | undefined): string | undefined {
  if (!appRoot) return undefined;
  const exe = process.platform === "win32" ? "rg.exe" : "rg";
  for (const modules of ["node_modules", "node_modules.asar.unpacked"]) {
    for (const pkg of ["@vscode/ripgrep", "vscode-ripgrep"]) {
      const candidate = path.join(appRoot, modules, pkg, "bin", exe);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * grep: the core tool run on VS Code's own ripgrep (so it works without rg on PATH),
 * else the core's PATH lookup and JavaScript scan: one result shape and one set of caps.
 */
export function createEditorGrepTool(appRoot: string | undefined = vscode.env.appRoot): Tool<GrepParams> & { engine: string } {
  const bundled = findBundledRipgrep(appRoot);
  const core = createGrepTool(bundled ? { ripgrep: bundled } : {});
  return {
    ...core,
    engine: bundled ?? "PATH or JavaScript",
    async execute(args, ctx) {
      refuseUri(args.path);
      if (args.include) refuseUri(args.include);
      return core.execute(args, ctx);
    },
  };
}
