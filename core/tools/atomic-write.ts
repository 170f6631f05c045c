import { randomBytes } from "node:crypto";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import * as path from "node:path";

export interface AtomicWriteResult {
  created: boolean;
  bytes: number;
}

/**
 * Replaces `file` with `data` so readers see the old or the new content, never a mix:
 * write a temp file beside it, fsync, rename over. An existing file keeps its mode;
 * a new one gets 0o666 minus the umask, like any created file, unless `mode` is given
 * (then the file has exactly that mode, old or new). Parents are created when `mkdirs`
 * is set. `file` must already be sandbox-resolved.
 */
export async function atomicWriteFile(
  file: string,
  data: string | Uint8Array,
  options: { mkdirs?: boolean; mode?: number } = {},
): Promise<AtomicWriteResult> {
  const dir = path.dirname(file);
  if (options.mkdirs) await mkdir(dir, { recursive: true });
  const existing = await stat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (existing?.isDirectory()) {
    throw Object.assign(new Error(`${file} is a directory`), { code: "EISDIR" });
  }
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  const mode = options.mode ?? (existing ? existing.mode & 0o7777 : undefined);
  const handle = await open(temp, "wx", mode ?? 0o666);
  try {
    try {
      await handle.writeFile(bytes);
      // open()'s mode is filtered by the umask; chmod sets the wanted one exactly.
      if (mode !== undefined) await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await syncDir(dir);
  return { created: !existing, bytes: bytes.byteLength };
}

/** Makes the rename durable. Some platforms cannot fsync a directory; that is not an error. */
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    /* best effort */
  }
}
