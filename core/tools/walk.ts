import { readdirSync, type Dirent } from "node:fs";
import * as path from "node:path";
import { isIgnored, readRules, rootFrames, type IgnoreFrame } from "./gitignore";
import { displayPath, isProtectedName } from "./sandbox";
import { TimeSlicer } from "./time-slice";

export interface WalkEntry {
  abs: string;
  /** Workspace-relative, `/`-separated. */
  rel: string;
  kind: "file" | "symlink";
}

export interface WalkOptions {
  /** Real workspace root; .gitignore files are honoured from here down. */
  root: string;
  /** Real directory inside the root to walk. */
  start: string;
  signal?: AbortSignal;
  /** Honour .gitignore files and .git/info/exclude (default true). */
  gitignore?: boolean;
  /** Prune directories before descending (rel is workspace-relative, no trailing slash). */
  skipDir?: (rel: string) => boolean;
}

/**
 * Yields the files (and symlinks, never followed) below `start`, depth-first in sorted
 * order, skipping .git/ and .downcity/ at any depth and what .gitignore files exclude.
 * Nested .gitignore files apply to their own subtree; the deepest one that decides
 * wins, as in git; ignored directories are not entered (so their .gitignore is unread).
 */
export async function* walkWorkspace(options: WalkOptions): AsyncGenerator<WalkEntry> {
  const { root, start, signal } = options;
  const useIgnore = options.gitignore !== false;
  const startRel = displayPath(root, start) === "." ? "" : displayPath(root, start);

  // Rules from the root down to `start` apply below it too.
  const initial: IgnoreFrame[] = useIgnore ? rootFrames(root) : [];
  if (useIgnore) {
    const parts = startRel === "" ? [] : startRel.split("/");
    for (let i = 0; i < parts.length; i++) {
      const rel = parts.slice(0, i).join("/");
      const rules = readRules(path.join(root, rel, ".gitignore"));
      if (rules) initial.push({ base: rel, ig: rules });
    }
  }

  const stack: { abs: string; rel: string; frames: IgnoreFrame[] }[] = [{ abs: start, rel: startRel, frames: initial }];
  // Sync fs in time slices: see TimeSlicer.
  const slicer = new TimeSlicer();
  while (stack.length > 0) {
    signal?.throwIfAborted();
    await slicer.tick(signal);
    const dir = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(dir.abs, { withFileTypes: true });
    } catch {
      continue; // unreadable or vanished: skip, as a search tool should
    }
    let frames = dir.frames;
    if (useIgnore && entries.some((e) => e.name === ".gitignore" && e.isFile())) {
      const rules = readRules(path.join(dir.abs, ".gitignore"));
      if (rules) frames = [...frames, { base: dir.rel, ig: rules }];
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirs: { abs: string; rel: string; frames: IgnoreFrame[] }[] = [];
    for (const entry of entries) {
      const rel = dir.rel === "" ? entry.name : `${dir.rel}/${entry.name}`;
      const abs = path.join(dir.abs, entry.name);
      if (entry.isDirectory()) {
        if (isProtectedName(entry.name)) continue;
        if (useIgnore && isIgnored(frames, rel, true)) continue;
        if (options.skipDir?.(rel)) continue;
        subdirs.push({ abs, rel, frames });
      } else if (entry.isFile() || entry.isSymbolicLink()) {
        if (useIgnore && isIgnored(frames, rel, false)) continue;
        yield { abs, rel, kind: entry.isFile() ? "file" : "symlink" };
      }
    }
    // Reverse so the stack pops them in sorted order.
    for (let i = subdirs.length - 1; i >= 0; i--) stack.push(subdirs[i]!);
  }
}
