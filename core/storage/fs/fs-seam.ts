import * as fsp from "node:fs/promises";
import { closeSync, constants, existsSync, lstatSync, openSync, readFileSync, readSync } from "node:fs";
import type { Dirent, Stats } from "node:fs";

/** The part of a `FileHandle` the store uses: positional writes, fsync, truncation. */
export interface FileHandleSeam {
  write(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  read(buffer: Buffer, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  stat(): Promise<Stats>;
  close(): Promise<void>;
}

/**
 * Every filesystem call the store makes goes through this seam, so tests can inject
 * write / fsync failures and count reads (e.g. "opening a long session reads no old
 * segment") without mocking the store itself.
 */
export interface FsSeam {
  /** Never follows a symbolic link in the last component (`O_NOFOLLOW` where the platform has it). */
  open(path: string, flags: OpenFlags): Promise<FileHandleSeam>;
  /** Whole-file read; like `open`, refuses a symbolic link. */
  readFile(path: string): Promise<Buffer>;
  /**
   * Small-file read on the calling thread, as UTF-8 text; like `open`, refuses a symbolic
   * link. Lists use it in short chunks between which the event loop runs: on small VMs the
   * thread-pool round trips of async reads cost several times more than the read itself.
   */
  readTextSync(path: string): string;
  /** Synchronous existence check (cheap: no Stats object; follows links, so pair it with `lstat` where that matters). */
  existsSync(path: string): boolean;
  /** A regular file's mtime in ms, on the calling thread (no link followed); undefined for anything else or nothing. */
  mtimeSync(path: string): number | undefined;
  lstat(path: string): Promise<Stats>;
  readdir(path: string): Promise<Dirent[]>;
  mkdir(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  link(existing: string, newPath: string): Promise<void>;
  copyFile(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  rm(path: string): Promise<void>;
  stat(path: string): Promise<Stats>;
  utimes(path: string, time: Date): Promise<void>;
}

export type OpenFlags = "r" | "r+" | "wx" | "w+";

/** 0 where the platform has no O_NOFOLLOW (Windows: the lstat checks of `no-links.ts` still apply). */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;
/** A FIFO planted as a store file must not hang a read (its open would wait for a writer); no effect on files. */
const NONBLOCK = constants.O_NONBLOCK ?? 0;
const FLAGS: Record<OpenFlags, number> = {
  r: constants.O_RDONLY | NOFOLLOW | NONBLOCK,
  "r+": constants.O_RDWR | NOFOLLOW,
  wx: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW,
  "w+": constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC | NOFOLLOW,
};

const small = Buffer.allocUnsafe(16 * 1024);

/**
 * open + read + close into a reused buffer, decoded from it: no fstat and no Buffer per
 * file (a 10,000-session list reads 10,000 of them). Larger files take the usual path.
 */
function readSmallTextSync(path: string): string {
  const fd = openSync(path, FLAGS.r);
  try {
    const length = readSync(fd, small, 0, small.length, 0);
    // A positional read leaves the offset at 0, so a larger file is read whole from the same fd.
    return length < small.length ? small.toString("utf8", 0, length) : readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
}

async function readFileNoFollow(path: string): Promise<Buffer> {
  const handle = await fsp.open(path, FLAGS.r);
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

export const nodeFs: FsSeam = {
  open: (path, flags) => fsp.open(path, FLAGS[flags]),
  readFile: readFileNoFollow,
  readTextSync: readSmallTextSync,
  existsSync,
  mtimeSync: (path) => {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats?.isFile() ? stats.mtimeMs : undefined;
  },
  lstat: (path) => fsp.lstat(path),
  readdir: (path) => fsp.readdir(path, { withFileTypes: true }),
  mkdir: async (path) => {
    await fsp.mkdir(path, { recursive: true });
  },
  rename: (from, to) => fsp.rename(from, to),
  link: (existing, newPath) => fsp.link(existing, newPath),
  // COPYFILE_EXCL: a copy never overwrites, like link().
  copyFile: (from, to) => fsp.copyFile(from, to, fsp.constants.COPYFILE_EXCL),
  unlink: (path) => fsp.unlink(path),
  rm: (path) => fsp.rm(path, { recursive: true, force: true }),
  stat: (path) => fsp.stat(path),
  utimes: (path, time) => fsp.utimes(path, time, time),
};

export function isErrno(error: unknown, ...codes: string[]): boolean {
  return typeof error === "object" && error !== null && codes.includes((error as NodeJS.ErrnoException).code ?? "");
}
