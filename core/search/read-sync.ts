import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from "node:fs";
import { sep } from "node:path";
import { DOWNCITY_DIR, type SessionPaths } from "../storage/layout";
import { sortSegments, type SegmentName } from "../storage/segment-codec";

/**
 * Search's reads of small files and lstat checks, on the calling thread: a search
 * visits thousands of session folders, and on small machines each thread-pool round
 * trip of an async call costs more than the read (see core/storage/fs/fs-seam.ts). The
 * search loop yields to the event loop between sessions.
 */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/** `[from, to)` of a file (to the end when `to` is undefined), never through a link; undefined when it does not exist. */
export function readFileQuiet(path: string, from = 0, to?: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
      return undefined;
    throw error;
  }
  try {
    const end = to ?? fstatSync(fd).size;
    const buf = Buffer.allocUnsafe(Math.max(0, end - from));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, from + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** lstat without an exception for a missing path (throwing costs ~10x the call). */
export function lstatQuiet(path: string) {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The lstat of a session's own files, as the scan found them. */
export interface SessionFiles {
  draft: boolean;
}

/**
 * Whether no component from `.downcity/` down to the session's files is a symbolic link
 * (the store refuses such a session: search never reads through one): undefined when one
 * is, else what the checks saw. The folders above the session are checked once per
 * search (`checked` caches them).
 */
export function linkFree(root: string, paths: SessionPaths, checked: Map<string, boolean>): SessionFiles | undefined {
  const base = root + sep + DOWNCITY_DIR;
  let path = base;
  const parts = paths.dir.slice(base.length + 1).split(sep);
  for (let i = 0; i < parts.length; i++) {
    path = i === 0 ? base : path + sep + parts[i - 1];
    const known = checked.get(path);
    if (known === false) return undefined;
    if (known === true) continue;
    const ok = lstatQuiet(path)?.isSymbolicLink() !== true;
    checked.set(path, ok);
    if (!ok) return undefined;
  }
  for (const p of [paths.dir, paths.messages, paths.active, paths.segments])
    if (lstatQuiet(p)?.isSymbolicLink()) return undefined;
  const draft = lstatQuiet(paths.draft);
  if (draft?.isSymbolicLink()) return undefined;
  return { draft: draft?.isFile() === true };
}

/** The segment names of a session, sorted by range (a missing or linked folder: none). */
export function segmentNamesSync(paths: SessionPaths): SegmentName[] {
  if (lstatQuiet(paths.segments)?.isDirectory() !== true) return [];
  try {
    return sortSegments(
      readdirSync(paths.segments, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name),
    );
  } catch {
    return [];
  }
}
