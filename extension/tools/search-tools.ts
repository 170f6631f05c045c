import { existsSync, statSync } from "node:fs";
import * as path from "node:path";
import picomatch from "picomatch";
import * as vscode from "vscode";
import { GLOB, GREP, type GlobParams, type GrepParams } from "../../core/tools/definitions";
import { ToolError } from "../../core/tools/errors";
import { GLOB_MAX_RESULTS, checkGlobPattern } from "../../core/tools/node/glob";
import { createGrepTool } from "../../core/tools/node/grep";
import { isProtectedName } from "../../core/tools/sandbox";
import { refuseProtectedSearch, searchedIgnoredNote } from "../../core/tools/search-scope";
import { textOutput, type Tool, type ToolOutput } from "../../core/tools/types";
import { tokenFor } from "./cancellation";
import { editorExcludes, workspaceFindFiles, type FindFiles } from "./excludes";
import type { GitignoreDiscovery } from "./gitignore-discovery";
import { relativeToRoot, refuseUri, resolveToolPath } from "./paths";

/**
 * glob through `workspace.findFiles`, leaving out what the user excludes in the editor
 * (files.exclude, search.exclude) and what the core's glob leaves out (.gitignore files,
 * .git/ and .downcity/): see `editorExcludes`. Ignored trees are excluded before VS Code's
 * search enumerates, unless the pattern names one (`node_modules/foo/**`): then it is
 * searched whole, and the answer says so.
 */
export interface SearchSeams {
  findFiles?: FindFiles;
  /** Where the folder's nested .gitignore files are, kept between calls (createEditorTools gives one). */
  discovery?: GitignoreDiscovery;
}

export function createEditorGlobTool(folder: vscode.WorkspaceFolder, seams: SearchSeams = {}): Tool<GlobParams> {
  const find = seams.findFiles ?? workspaceFindFiles;
  return {
    ...GLOB,
    async execute(args, ctx) {
      const pattern = checkGlobPattern(args.pattern);
      refuseUri(pattern);
      const base = await resolveToolPath(ctx.root, args.path, false);
      refuseProtectedSearch("glob", base.shown);
      const stat = await Promise.resolve(vscode.workspace.fs.stat(base.uri)).catch(() => undefined);
      if (!stat) throw new ToolError(`${base.shown}: no such file or directory`);
      if (!(stat.type & vscode.FileType.Directory)) throw new ToolError(`${base.shown} is not a directory`);
      const excludes = await editorExcludes(folder, ctx.root, {
        findFiles: find,
        signal: ctx.signal,
        ...(seams.discovery ? { discovery: seams.discovery } : {}),
      });
      const globInPath = /[*?[\]{}!]/.test(base.shown);
      // The folder the pattern names before its first wildcard: searched whole when it is ignored.
      const scan = picomatch.scan(pattern);
      const named = globInPath
        ? base.shown
        : joinRel(base.shown, scan.isGlob ? scan.base : path.posix.dirname(pattern));
      refuseProtectedSearch("glob", named);
      const explicit = globInPath ? undefined : excludes.ignoredDir(named);
      // findFiles matches the exclude against paths relative to the include's base: make the
      // base the folder, so settings globs (`src/gen`, `**/out`) mean what they mean in the editor.
      const include = globInPath
        ? new vscode.RelativePattern(base.uri, pattern) // glob characters in the path: left to the exact check
        : new vscode.RelativePattern(
            vscode.Uri.file(ctx.root),
            base.shown === "." ? pattern : `${base.shown}/${pattern}`,
          );
      const exclude = explicit ? excludes.protectedGlob : globInPath ? excludes.settingsGlob : excludes.glob;
      const keeps = explicit ? (rel: string) => !rel.split("/").some(isProtectedName) : excludes.keeps;
      let dropped = 0;
      const kept = (uris: vscode.Uri[]) => {
        const out: string[] = [];
        dropped = 0;
        for (const uri of uris) {
          const rel = relativeToRoot(ctx.root, uri);
          if (rel !== undefined && keeps(rel)) out.push(rel);
          else dropped++;
        }
        return out;
      };
      let uris = await findFiles(find, include, exclude, GLOB_MAX_RESULTS + 1, ctx.signal);
      let found = kept(uris);
      // The cap was reached before the exact check dropped some: more may match, so ask without it.
      if (uris.length > GLOB_MAX_RESULTS && found.length <= GLOB_MAX_RESULTS) {
        uris = await findFiles(find, include, exclude, undefined, ctx.signal);
        found = kept(uris);
      }
      const notes: string[] = [];
      if (explicit) notes.push(searchedIgnoredNote(explicit.dir, explicit.by, "the pattern names it"));
      else {
        const skipped = excludes.skippedBelow(named);
        const what: string[] = [];
        if (skipped.length > 0)
          what.push(`ignored, not searched: ${listDirs(skipped)} (name one in the pattern to search it)`);
        if (dropped > 0) what.push(`${dropped} ignored ${dropped === 1 ? "file" : "files"} left out`);
        if (what.length > 0) notes.push(`[${what.join("; ")}]`);
      }
      const more = found.length > GLOB_MAX_RESULTS;
      if (more)
        notes.unshift(
          `[more than ${GLOB_MAX_RESULTS} files match; showing the first ${GLOB_MAX_RESULTS}. Narrow the pattern or the path]`,
        );
      const note = notes.map((n) => `\n${n}`).join("");
      if (found.length === 0) return textOutput(`no files match ${args.pattern} in ${base.shown}/${note}`);
      found.sort();
      return textOutput(found.slice(0, GLOB_MAX_RESULTS).join("\n") + note, { truncated: more });
    },
  };
}

/** Up to 10 directory names, then how many more. */
export function listDirs(dirs: readonly string[]): string {
  const shown = dirs.slice(0, 10).map((d) => `${d}/`);
  return dirs.length > 10 ? `${shown.join(", ")} and ${dirs.length - 10} more` : shown.join(", ");
}

function joinRel(dir: string, sub: string): string {
  if (sub === "" || sub === ".") return dir;
  return dir === "." ? sub : `${dir}/${sub}`;
}

async function findFiles(
  find: FindFiles,
  include: vscode.RelativePattern,
  exclude: string,
  max: number | undefined,
  signal: AbortSignal,
): Promise<vscode.Uri[]> {
  const cancel = tokenFor(signal);
  try {
    return await find(include, exclude, max, cancel.token);
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
 * ripgrep prunes what .gitignore files ignore by itself; files.exclude and search.exclude
 * are added as its excludes. A path or include naming an ignored tree searches it whole.
 * The note names the ignored folders it skipped: with `seams.discovery`, those nested
 * .gitignore files ignore too (found once, kept); without it, those of the root's rules.
 */
export function createEditorGrepTool(
  appRoot: string | undefined = vscode.env.appRoot,
  folder?: vscode.WorkspaceFolder,
  seams: SearchSeams = {},
): Tool<GrepParams> & { engine: string } {
  const bundled = findBundledRipgrep(appRoot);
  const core = createGrepTool(bundled ? { ripgrep: bundled } : {});
  return {
    ...core,
    engine: bundled ?? "PATH or JavaScript",
    async execute(args, ctx) {
      refuseUri(args.path);
      if (args.include) refuseUri(args.include);
      const scope = folder ?? vscode.workspace.workspaceFolders?.find((f) => f.uri.fsPath === ctx.root);
      const start = await resolveToolPath(ctx.root, args.path, false);
      const excludes = await editorExcludes(
        scope,
        ctx.root,
        seams.discovery
          ? { discovery: seams.discovery, findFiles: seams.findFiles ?? workspaceFindFiles, signal: ctx.signal }
          : { nested: false },
      );
      // An include with a folder in it (`node_modules/foo/**`) names that folder, relative to the root.
      const includeBase = args.include?.includes("/") ? picomatch.scan(args.include.replace(/^\.\//, "")).base : "";
      const narrowed =
        includeBase !== "" && within(includeBase, start.shown) && isDir(path.join(ctx.root, includeBase))
          ? includeBase
          : undefined;
      const named = narrowed ?? start.shown;
      const explicit = excludes.ignoredDir(named);
      if (explicit) {
        const out = await core.search({ ...args, path: named }, ctx, { noIgnore: true });
        const shown = explicit.dir === named && !isDir(path.join(ctx.root, named)) ? named : `${explicit.dir}/`;
        return withNote(out, `[searched ${shown}, which ${explicit.by} ignores, because it was named]`);
      }
      const out = await core.search(args, ctx, { exclude: excludes.settingsGlobs });
      const skipped = excludes.skippedBelow(start.shown);
      return skipped.length > 0
        ? withNote(out, `[ignored, not searched: ${listDirs(skipped)} (name one in the path or include to search it)]`)
        : out;
    },
  };
}

function within(rel: string, dir: string): boolean {
  return dir === "." || rel === dir || rel.startsWith(`${dir}/`);
}

function isDir(abs: string): boolean {
  return statSync(abs, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

/** The answer with one more line at the end (a tool error stays as it is). */
function withNote(out: ToolOutput, note: string): ToolOutput {
  if (out.isError) return out;
  const text = out.content.map((p) => (p.type === "text" ? p.text : "")).join("");
  return { ...out, content: [{ type: "text", text: `${text}\n${note}` }] };
}
