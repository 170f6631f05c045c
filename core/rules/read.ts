import { constants, type Stats } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import { join, sep } from "node:path";

/** A rules file is read up to this many bytes; the rest is cut with a marker (a repo may hold anything). */
export const RULES_FILE_CAP = 64 * 1024;

export type ReadOutcome =
  | { kind: "missing" }
  | { kind: "refused"; note: string }
  | { kind: "file"; text: string; capped: boolean; stat: Stats }
  | { kind: "dir"; entries: string[] };

/** Counts what a load really cost, for the tests that assert the cache (one lstat, no read, per unchanged file). */
export interface ReadCounters {
  lstats: number;
  reads: number;
}

/**
 * Reads one candidate under `root` as untrusted input: no component below the root may be
 * a symbolic link (lstat each; the file is opened O_NOFOLLOW | O_NONBLOCK so a FIFO cannot
 * hang the turn), only a regular file is read, at most RULES_FILE_CAP bytes, as UTF-8
 * plain text with control characters (but tab and newline) removed. `known` is the cached
 * stat of the same path: when size, mtime and inode match, the text is not read again.
 */
export async function readCandidate(
  root: string,
  relative: string,
  counters: ReadCounters,
  dirs: Map<string, boolean | string>,
  known?: { stat: Stats; text: string; capped: boolean },
): Promise<ReadOutcome> {
  const parts = relative.split("/");
  let path = root;
  for (let i = 0; i < parts.length - 1; i++) {
    path = join(path, parts[i]!);
    const dir = await checkDir(path, counters, dirs);
    if (dir === false) return { kind: "missing" };
    if (typeof dir === "string") return { kind: "refused", note: dir };
  }
  path = join(path, parts[parts.length - 1]!);
  let st: Stats;
  try {
    counters.lstats++;
    st = await lstat(path);
  } catch {
    return { kind: "missing" };
  }
  if (st.isSymbolicLink())
    return { kind: "refused", note: "a symbolic link (rules files are never followed out of the folder)" };
  if (st.isDirectory()) {
    const names = (await readdir(path, { withFileTypes: true }).catch(() => []))
      .filter((e) => !e.name.startsWith("."))
      .map((e) => e.name)
      .sort();
    return { kind: "dir", entries: names };
  }
  if (!st.isFile()) return { kind: "refused", note: "not a regular file" };
  if (
    known &&
    known.stat.size === st.size &&
    known.stat.mtimeMs === st.mtimeMs &&
    known.stat.ino === st.ino &&
    known.stat.ctimeMs === st.ctimeMs
  ) {
    return { kind: "file", text: known.text, capped: known.capped, stat: st };
  }
  try {
    counters.reads++;
    const handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) return { kind: "refused", note: "not a regular file" };
      const buffer = Buffer.alloc(Math.min(opened.size, RULES_FILE_CAP + 1));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      const capped = bytesRead > RULES_FILE_CAP;
      const text = plainText(buffer.subarray(0, Math.min(bytesRead, RULES_FILE_CAP)).toString("utf8"));
      return { kind: "file", text, capped, stat: st };
    } finally {
      await handle.close();
    }
  } catch (error) {
    return {
      kind: "refused",
      note: `unreadable (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    };
  }
}

/** true: a real directory; false: missing; a string: why it is refused (a link). Memoised per load. */
async function checkDir(
  path: string,
  counters: ReadCounters,
  dirs: Map<string, boolean | string>,
): Promise<boolean | string> {
  const hit = dirs.get(path);
  if (hit !== undefined) return hit;
  let result: boolean | string;
  try {
    counters.lstats++;
    const st = await lstat(path);
    result = st.isSymbolicLink() ? `${path.split(sep).pop()} is a symbolic link` : st.isDirectory();
  } catch {
    result = false;
  }
  dirs.set(path, result);
  return result;
}

/** The text with NUL and other control characters (not tab, newline) removed, a trailing partial character dropped. */
function plainText(text: string): string {
  return text.replace(/\uFFFD$/, "").replace(/[\u0000-\u0008\u000B-\u001F\u007F]/g, "");
}
