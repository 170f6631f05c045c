import { randomBytes } from "node:crypto";
import { dirname, join, basename } from "node:path";
import { isErrno, type FsSeam } from "./fs-seam";

export function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${randomBytes(6).toString("hex")}`);
}

/** Writes all of `data` at `position`, looping over short writes. */
export async function writeFully(
  handle: Awaited<ReturnType<FsSeam["open"]>>,
  data: Buffer,
  position: number,
): Promise<void> {
  let done = 0;
  while (done < data.length) {
    const { bytesWritten } = await handle.write(data, done, data.length - done, position + done);
    if (bytesWritten <= 0) throw new Error(`short write at ${position + done}`);
    done += bytesWritten;
  }
}

/** Makes a directory's entries (a new or renamed name) durable. */
export async function fsyncDir(fs: FsSeam, dir: string): Promise<void> {
  const handle = await fs.open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `data` to a fresh temp file beside `path` and fsyncs it; returns the temp path. */
export async function writeTemp(fs: FsSeam, path: string, data: Buffer): Promise<string> {
  const temp = tempName(path);
  const handle = await fs.open(temp, "wx");
  try {
    await writeFully(handle, data, 0);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await fs.unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  return temp;
}

/** temp → fsync → rename over `path` (→ fsync dir when `durableName`). */
export async function writeAtomic(fs: FsSeam, path: string, data: Buffer, durableName = false): Promise<void> {
  const temp = await writeTemp(fs, path, data);
  try {
    await fs.rename(temp, path);
  } catch (error) {
    await fs.unlink(temp).catch(() => {});
    throw error;
  }
  if (durableName) await fsyncDir(fs, dirname(path));
}

/**
 * temp → fsync → link to `path` (fails with EEXIST rather than overwrite) → fsync dir.
 * Used for first publication of files that must never be replaced (Active, segments).
 */
export async function publishNew(fs: FsSeam, path: string, data: Buffer): Promise<void> {
  const temp = await writeTemp(fs, path, data);
  try {
    await fs.link(temp, path);
  } finally {
    await fs.unlink(temp).catch(() => {});
  }
  await fsyncDir(fs, dirname(path));
}

export async function readIfExists(fs: FsSeam, path: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(path);
  } catch (error) {
    if (isErrno(error, "ENOENT", "ENOTDIR")) return undefined;
    throw namedError(error, path);
  }
}

/** The same error with the file in its message: some fs errors (EISDIR on read) name none. */
export function namedError(error: unknown, path: string): Error {
  const err = error instanceof Error ? error : new Error(String(error));
  if (err.message.includes(path)) return err;
  return Object.assign(new Error(`${path}: ${err.message}`), { code: (err as NodeJS.ErrnoException).code, cause: err });
}
