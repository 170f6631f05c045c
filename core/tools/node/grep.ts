import { stat } from "node:fs/promises";
import { GREP, type GrepParams } from "../definitions";
import { fsError } from "../errors";
import picomatch from "picomatch";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { ignoredNamedDir, refuseProtectedSearch, searchedIgnoredNote } from "../search-scope";
import { textOutput, type Tool, type ToolContext, type ToolOutput } from "../types";
import { grepJs } from "./grep-js";
import { grepRipgrep } from "./grep-rg";
import type { GrepQuery } from "./grep-types";
import { findOnPath } from "./which";

const DEFAULT_MAX_RESULTS = 200;

export interface GrepToolOptions {
  /** Path of the ripgrep binary; `false` forces the JS scan; undefined looks for `rg` on PATH. */
  ripgrep?: string | false;
  /** How long the JS scan's regular expression may run per call (default 10 s). */
  jsTimeLimitMs?: number;
}

/** What a caller adds to one search: excludes, or an ignored tree to search whole. */
export type GrepScope = Pick<GrepQuery, "exclude" | "noIgnore">;

/** grep for Node: ripgrep when available, else the JS scan; same output either way. */
export function createGrepTool(
  options: GrepToolOptions = {},
): Tool<GrepParams> & { search(args: GrepParams, ctx: ToolContext, scope: GrepScope): Promise<ToolOutput> } {
  let rg: string | false | undefined = options.ripgrep;
  const ripgrep = () => (rg ??= findOnPath("rg") ?? false);
  const tool = {
    ...GREP,
    execute: (args: GrepParams, ctx: ToolContext) => tool.search(args, ctx, {}),
    async search(args: GrepParams, ctx: ToolContext, scope: GrepScope): Promise<ToolOutput> {
      const start = await resolveInsideRoot(ctx.root, args.path, { forWrite: false });
      const startRel = displayPath(ctx.root, start);
      refuseProtectedSearch("grep", startRel);
      if (args.include !== undefined) refuseProtectedSearch("grep", picomatch.scan(args.include).base);
      const info = await stat(start).catch((err) => {
        throw fsError(err, startRel);
      });
      const query: GrepQuery = {
        root: ctx.root,
        start,
        startRel,
        isFile: !info.isDirectory(),
        pattern: args.pattern,
        ignoreCase: args.ignoreCase ?? false,
        fixedStrings: args.fixedStrings ?? false,
        maxResults: args.maxResults ?? DEFAULT_MAX_RESULTS,
      };
      if (args.include !== undefined) query.include = args.include;
      if (scope.exclude?.length) query.exclude = scope.exclude;
      // A folder .gitignore ignores, named as the path, is searched whole (ripgrep would, the walk would not).
      const explicit = scope.noIgnore || !info.isDirectory() ? undefined : ignoredNamedDir(ctx.root, startRel);
      if (scope.noIgnore || explicit) query.noIgnore = true;
      const binary = ripgrep();
      const result = binary
        ? await grepRipgrep(binary, query, ctx.signal)
        : await grepJs(query, ctx.signal, options.jsTimeLimitMs);
      const named = explicit ? `\n${searchedIgnoredNote(explicit, ".gitignore", "it was named")}` : "";
      if (result.lines.length === 0) return textOutput(`no matches for /${args.pattern}/ in ${startRel}${named}`);
      const note =
        (result.limited
          ? `\n[stopped after ${query.maxResults} matching lines; there are more. Narrow the pattern, path or include]`
          : "") + named;
      return textOutput(result.lines.join("\n") + note, { truncated: result.limited });
    },
  };
  return tool;
}
