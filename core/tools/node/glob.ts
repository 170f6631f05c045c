import { stat } from "node:fs/promises";
import * as path from "node:path";
import picomatch from "picomatch";
import { GLOB, type GlobParams } from "../definitions";
import { ToolError, fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { ignoredNamedDir, refuseProtectedSearch, searchedIgnoredNote } from "../search-scope";
import { textOutput, type Tool } from "../types";
import { walkWorkspace } from "../walk";

/** Paths a glob answer lists at most (the editor-backed glob uses the same cap). */
export const GLOB_MAX_RESULTS = 1_000;
const MAX_RESULTS = GLOB_MAX_RESULTS;

/** The pattern without a leading "./"; refused when absolute or climbing out with "..". */
export function checkGlobPattern(raw: string): string {
  const pattern = raw.replace(/^\.\//, "");
  if (path.isAbsolute(pattern) || pattern.split("/").includes("..")) {
    throw new ToolError(`glob patterns are relative to 'path' and may not use '..' or be absolute: ${raw}`);
  }
  return pattern;
}

/**
 * glob for Node: walks from the pattern's literal base, honouring .gitignore, unless that
 * base is an ignored folder (`node_modules/foo/**`): then it is walked whole, and the
 * answer says so. .git/ and .downcity/ are never walked, and naming them is an error.
 */
export function createGlobTool(): Tool<GlobParams> {
  return {
    ...GLOB,
    async execute(args, ctx) {
      const pattern = checkGlobPattern(args.pattern);
      const base = await resolveInsideRoot(ctx.root, args.path, { forWrite: false });
      const shown = displayPath(ctx.root, base);
      refuseProtectedSearch("glob", shown);
      const info = await stat(base).catch((err) => {
        throw fsError(err, shown);
      });
      if (!info.isDirectory()) throw new ToolError(`${shown} is not a directory`);

      // Start at the pattern's literal prefix (e.g. `src/lib` of `src/lib/**/*.ts`) instead of the whole tree.
      const scan = picomatch.scan(pattern);
      let start = base;
      let matchPattern = pattern;
      if (scan.isGlob && scan.base) {
        start = await resolveInsideRoot(ctx.root, path.join(base, scan.base), { forWrite: false });
        matchPattern = pattern.slice(scan.base.length).replace(/^\//, "");
      } else if (!scan.isGlob) {
        // A plain path: match it exactly from its parent.
        const dir = path.posix.dirname(pattern);
        if (dir !== ".") start = await resolveInsideRoot(ctx.root, path.join(base, dir), { forWrite: false });
        matchPattern = path.posix.basename(pattern);
      }
      const startRel = displayPath(ctx.root, start);
      refuseProtectedSearch("glob", startRel);
      const startInfo = await stat(start).catch(() => undefined);
      if (!startInfo?.isDirectory()) return textOutput(`no files match ${args.pattern} in ${shown}/`);
      const explicit = ignoredNamedDir(ctx.root, startRel);
      const named = explicit ? `\n${searchedIgnoredNote(explicit, ".gitignore", "the pattern names it")}` : "";

      const isMatch = picomatch(matchPattern, { dot: true });
      const prefixLen = startRel === "." ? 0 : startRel.length + 1;
      const found: string[] = [];
      let more = false;
      // Without `**` a pattern cannot match deeper than its slashes allow: do not descend further.
      const maxDirDepth = matchPattern.includes("**") ? Infinity : matchPattern.split("/").length - 1;
      const skipDir = (rel: string) => rel.slice(prefixLen).split("/").length > maxDirDepth;
      const walk = walkWorkspace({ root: ctx.root, start, signal: ctx.signal, skipDir, gitignore: !explicit });
      for await (const entry of walk) {
        if (!isMatch(entry.rel.slice(prefixLen))) continue;
        if (found.length === MAX_RESULTS) {
          more = true;
          break;
        }
        found.push(entry.rel);
      }
      if (found.length === 0) return textOutput(`no files match ${args.pattern} in ${shown}/${named}`);
      const note =
        (more
          ? `\n[more than ${MAX_RESULTS} files match; showing the first ${MAX_RESULTS}. Narrow the pattern or the path]`
          : "") + named;
      found.sort();
      return textOutput(found.join("\n") + note, { truncated: more });
    },
  };
}
