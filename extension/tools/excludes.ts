import { readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import { expand } from "brace-expansion";
import picomatch from "picomatch";
import * as vscode from "vscode";
import { gitignoreVerdicts } from "../../core/tools/gitignore";
import {
  parseGitignore,
  pruneGlobs,
  ruleLiteralPath,
  type IgnoreFile,
  type PruneGlobs,
} from "../../core/tools/gitignore-glob";
import { isProtectedName } from "../../core/tools/sandbox";
import { tokenFor } from "./cancellation";
import type { GitignoreDiscovery } from "./gitignore-discovery";

/** `workspace.findFiles`, or a stand-in that counts what it is asked (tests, benches). */
export type FindFiles = (
  include: vscode.GlobPattern,
  exclude: vscode.GlobPattern | null | undefined,
  maxResults?: number,
  token?: vscode.CancellationToken,
) => Thenable<vscode.Uri[]>;

export const workspaceFindFiles: FindFiles = (include, exclude, max, token) =>
  vscode.workspace.findFiles(include, exclude, max, token);

/** Why a directory is not searched. */
export interface IgnoredDir {
  /** The workspace-relative directory that is ignored (the one asked about, or one above it). */
  dir: string;
  by: ".gitignore" | "files.exclude" | "search.exclude";
}

/**
 * What the editor's search tools leave out, so they list what the core's glob lists plus
 * what the user hides in VS Code: files.exclude, search.exclude (the entries set to true),
 * the folder's .gitignore files (root, nested, .git/info/exclude), never .git/ or .downcity/.
 * `glob` goes to findFiles, so VS Code's search (ripgrep) never enters those trees: the
 * settings, the protected folders and every .gitignore rule that is safe to prune
 * (gitignore-glob.ts). `keeps` then decides exactly, with the `ignore` package.
 */
export interface EditorExcludes {
  /** findFiles' exclude for an include based at the root. */
  glob: string;
  /** The same without the .gitignore rules, whose globs are relative to the root (for an include based elsewhere). */
  settingsGlob: string;
  /** The settings' globs as written (for ripgrep, which takes them one by one). */
  settingsGlobs: string[];
  /** findFiles' exclude under an explicitly named ignored tree: the protected folders only. */
  protectedGlob: string;
  keeps(rel: string): boolean;
  /** The directory, or the first one above it, that is ignored, and why (undefined in .git/ or .downcity/). */
  ignoredDir(rel: string): IgnoredDir | undefined;
  /** Ignored directories that exist at or below `dir`, by name (those a rule names literally). */
  skippedBelow(dir: string): string[];
  /** The .gitignore rules turned into `glob`, and those left to `keeps`. */
  prune: PruneGlobs;
}

export interface EditorExcludesOptions {
  findFiles?: FindFiles;
  signal?: AbortSignal;
  /** Find nested .gitignore files to prune by (one findFiles); false reads the root's only (default true). */
  nested?: boolean;
  /** Where the nested .gitignore files are, kept between calls (the editor tools'); without it each call looks. */
  discovery?: GitignoreDiscovery;
}

const PROTECTED = ["**/.git", "**/.downcity"];
/** Rounds of finding nested .gitignore files before giving up on pruning by them (each round is one findFiles). */
const MAX_DISCOVERY_ROUNDS = 4;

export async function editorExcludes(
  folder: vscode.WorkspaceFolder | undefined,
  root: string,
  options: EditorExcludesOptions = {},
): Promise<EditorExcludes> {
  const find = options.findFiles ?? workspaceFindFiles;
  const settings: { glob: string; by: "files.exclude" | "search.exclude" }[] = [];
  for (const section of ["files", "search"] as const) {
    const table = vscode.workspace.getConfiguration(section, folder?.uri).get<Record<string, unknown>>("exclude") ?? {};
    for (const [glob, on] of Object.entries(table))
      if (on === true) settings.push({ glob: glob.replace(/^\/+/, ""), by: `${section}.exclude` });
  }
  const settingsMatchers = settings.map((s) => ({ by: s.by, match: picomatch(s.glob, { dot: true }) }));
  const verdicts = gitignoreVerdicts(root);
  // findFiles takes one exclude glob; VS Code's `{a,b}` does not nest, so alternatives are flattened.
  const flatten = (globs: readonly string[]) => {
    const flat = new Set<string>();
    for (const glob of globs) for (const one of expand(glob)) if (!/[{},]/.test(one)) flat.add(one);
    return `{${[...flat].join(",")}}`;
  };
  const base = [...PROTECTED, ...settings.map((s) => s.glob)];
  const top = [
    readIgnoreFile(path.join(root, ".git", "info", "exclude"), ""),
    readIgnoreFile(path.join(root, ".gitignore"), ""),
  ].filter((f) => f !== undefined);
  const prune =
    options.nested === false
      ? pruneGlobs(top)
      : await discoverPrune(root, top, verdicts, {
          exclude: (globs) => flatten([...base, ...globs]),
          find,
          signal: options.signal,
          cache: options.discovery,
          key: flatten(base),
        });

  const ignoredDir = (rel: string): IgnoredDir | undefined => {
    if (rel === "." || rel === "") return undefined;
    const parts = rel.split("/");
    // .git/ and .downcity/ are not ignored but never searched: naming them does not open them.
    if (parts.some(isProtectedName)) return undefined;
    for (let i = 1; i <= parts.length; i++) {
      const dir = parts.slice(0, i).join("/");
      const setting = settingsMatchers.find((s) => s.match(dir));
      if (setting) return { dir, by: setting.by };
      if (verdicts.dir(dir)) return { dir, by: ".gitignore" };
    }
    return undefined;
  };
  return {
    glob: flatten([...base, ...prune.globs]),
    settingsGlob: flatten(base),
    settingsGlobs: settings.map((s) => s.glob),
    protectedGlob: flatten(PROTECTED),
    prune,
    keeps(rel) {
      const parts = rel.split("/");
      if (parts.some(isProtectedName)) return false;
      // A settings glob naming a folder hides everything in it, as in the editor.
      for (let i = 1; i <= parts.length; i++) {
        const prefix = parts.slice(0, i).join("/");
        if (settingsMatchers.some((s) => s.match(prefix))) return false;
      }
      return !verdicts.file(rel);
    },
    ignoredDir,
    skippedBelow(dir) {
      const under = dir === "." ? "" : dir;
      const candidates = new Set<string>();
      const at = (name: string) => {
        candidates.add(name);
        if (under !== "") candidates.add(`${under}/${name}`);
      };
      for (const { base: b, rule } of prune.pruned) {
        const literal = ruleLiteralPath(rule, b);
        if (literal === undefined) continue;
        if (rule.anchored) candidates.add(literal);
        else {
          candidates.add(literal);
          if (under.startsWith(b === "" ? "" : `${b}/`) && under !== b) candidates.add(`${under}/${rule.body}`);
        }
      }
      for (const { glob } of settings) {
        const name = /^(?:\*\*\/)?([^*?[\]{}/,]+)$/.exec(glob)?.[1];
        if (name !== undefined && glob.startsWith("**/")) at(name);
        else if (!/[*?[\]{},]/.test(glob)) candidates.add(glob);
      }
      const found: string[] = [];
      for (const c of candidates) {
        if (under !== "" && c !== under && !c.startsWith(`${under}/`)) continue;
        if (isProtectedName(path.posix.basename(c)) || !ignoredDir(c)) continue;
        if (statSync(path.join(root, c), { throwIfNoEntry: false })?.isDirectory()) found.push(c);
      }
      return found.sort();
    },
  };
}

/** The rules of an ignore file at `file`, or undefined when it cannot be read. */
function readIgnoreFile(file: string, base: string): IgnoreFile | undefined {
  try {
    return { base, rules: parseGitignore(readFileSync(file, "utf8")) };
  } catch {
    return undefined;
  }
}

/**
 * The prunable .gitignore rules of the folder. Nested .gitignore files are found with a
 * findFiles that already excludes what the rules known so far prune, so the ignored trees
 * are not enumerated to find them; a nested `!` rule can un-prune an outer rule, and then
 * the search is repeated without it (rarely more than once). Where they are is kept in
 * `cache` (their rules are read anew each time); a kept list still holds while every glob
 * its search was pruned by still prunes, and a .gitignore created since invalidates it.
 */
async function discoverPrune(
  root: string,
  top: readonly IgnoreFile[],
  verdicts: { dir(rel: string): boolean },
  how: {
    exclude: (globs: readonly string[]) => string;
    find: FindFiles;
    signal: AbortSignal | undefined;
    cache: GitignoreDiscovery | undefined;
    /** The settings' part of the exclude: a list found under other settings is not reused. */
    key: string;
  },
): Promise<PruneGlobs> {
  const { cache, key, signal } = how;
  const read = (dirs: readonly string[]) => {
    const nested: IgnoreFile[] = [];
    for (const dir of dirs) {
      if (verdicts.dir(dir)) continue; // inside an ignored directory: git never reads it
      const file = readIgnoreFile(path.join(root, dir, ".gitignore"), dir);
      if (file) nested.push(file);
    }
    // Parents before the directories below them: the order of precedence.
    nested.sort((a, b) => (a.base < b.base ? -1 : a.base > b.base ? 1 : 0));
    return pruneGlobs([...top, ...nested]);
  };
  // Every glob the search pruned by still holds: no .gitignore it could have hidden matters.
  const complete = (used: readonly string[], result: PruneGlobs) => {
    const kept = new Set(result.globs);
    return used.every((g) => kept.has(g));
  };
  const known = cache?.get(key);
  if (known) {
    const result = read(known.dirs);
    if (complete(known.used, result)) return result;
  }
  const since = cache?.begin() ?? 0;
  let used = pruneGlobs(top).globs;
  for (let round = 0; round < MAX_DISCOVERY_ROUNDS; round++) {
    const cancel = signal ? tokenFor(signal) : undefined;
    let uris: vscode.Uri[];
    try {
      uris = await how.find(
        new vscode.RelativePattern(vscode.Uri.file(root), "**/.gitignore"),
        how.exclude(used),
        undefined,
        cancel?.token,
      );
    } finally {
      cancel?.dispose();
      signal?.throwIfAborted();
    }
    const dirs: string[] = [];
    for (const uri of uris) {
      const dir = path.relative(root, path.dirname(uri.fsPath)).split(path.sep).join("/");
      if (dir === "" || dir.startsWith("..") || path.isAbsolute(dir)) continue;
      dirs.push(dir);
    }
    const result = read(dirs);
    if (complete(used, result)) {
      cache?.set(key, { dirs, used }, since);
      return result;
    }
    used = used.filter((g) => new Set(result.globs).has(g));
  }
  return { globs: [], leftToCheck: [], pruned: [] };
}
