import { readFileSync } from "node:fs";
import * as path from "node:path";
import ignore, { type Ignore } from "ignore";

/** The rules of one .gitignore, with the directory they are relative to. */
export interface IgnoreFrame {
  /** Workspace-relative directory ("" for the root). */
  base: string;
  ig: Ignore;
}

/** The rules of an ignore file, or undefined when it cannot be read. */
export function readRules(file: string): Ignore | undefined {
  try {
    return ignore().add(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/** The frame of `.git/info/exclude`, which applies from the root down. */
export function rootFrames(root: string): IgnoreFrame[] {
  const exclude = readRules(path.join(root, ".git", "info", "exclude"));
  return exclude ? [{ base: "", ig: exclude }] : [];
}

/** The deepest .gitignore with a verdict wins; a later rule in one file beats an earlier one. */
export function isIgnored(frames: readonly IgnoreFrame[], rel: string, isDir: boolean): boolean {
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i]!;
    const local = frame.base === "" ? rel : rel.slice(frame.base.length + 1);
    const verdict = frame.ig.test(isDir ? `${local}/` : local);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/** Verdicts for workspace-relative paths, as the walk would give them. */
export interface GitignoreVerdicts {
  /** The file is ignored, or a directory above it is. */
  file(rel: string): boolean;
  /** The directory is ignored, or a directory above it is ("" is the root, never ignored). */
  dir(rel: string): boolean;
}

/**
 * Answers for any workspace-relative path what the walk would: ignored when it, or a
 * directory above it, is ignored by the rules in force there (so a .gitignore inside an
 * ignored directory is never read). Each directory's rules are read once per instance.
 */
export function gitignoreVerdicts(root: string): GitignoreVerdicts {
  // Frames in force inside a directory, or null when the directory is ignored.
  const dirs = new Map<string, IgnoreFrame[] | null>();
  const framesIn = (dir: string): IgnoreFrame[] | null => {
    const known = dirs.get(dir);
    if (known !== undefined) return known;
    let frames: IgnoreFrame[] | null;
    if (dir === "") frames = rootFrames(root);
    else {
      const cut = dir.lastIndexOf("/");
      const parent = framesIn(cut < 0 ? "" : dir.slice(0, cut));
      frames = parent === null || isIgnored(parent, dir, true) ? null : parent;
    }
    if (frames !== null) {
      const rules = readRules(path.join(root, dir, ".gitignore"));
      if (rules) frames = [...frames, { base: dir, ig: rules }];
    }
    dirs.set(dir, frames);
    return frames;
  };
  return {
    file(rel) {
      const cut = rel.lastIndexOf("/");
      const frames = framesIn(cut < 0 ? "" : rel.slice(0, cut));
      return frames === null || isIgnored(frames, rel, false);
    },
    dir: (rel) => framesIn(rel) === null,
  };
}

/** `gitignoreVerdicts(root).file`. */
export function gitignoreChecker(root: string): (rel: string) => boolean {
  const verdicts = gitignoreVerdicts(root);
  return (rel) => verdicts.file(rel);
}
