import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, mkdir, open, readdir, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { ContentRef } from "../protocol";

let zstdModule: typeof import("@mongodb-js/zstd") | undefined;
const zstd = () => (zstdModule ??= require("@mongodb-js/zstd") as typeof import("@mongodb-js/zstd"));

/** Files larger than this are not kept: their content is recorded as unknown, never guessed. */
export const MAX_BLOB_BYTES = 16 * 1024 * 1024;
const ZSTD_LEVEL = 3;

export class BlobError extends Error {
  override name = "BlobError";
}

export const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

/**
 * Content-addressed file contents of one session (DESIGN §4):
 * `<session>/checkpoints/blobs/<first two hex>/<sha256>.zst`, one zstd frame of the raw
 * bytes. Writing a blob that exists is a no-op (deduplicated); a fork hard-links them.
 * A read is untrusted (the folder may come from a cloned repository): no component from
 * the checkpoints folder down may be a link, the file is opened O_NOFOLLOW, and the
 * content must hash to its name — so a hard link to any other file yields nothing but
 * the exact bytes its name promises (forks hard-link blobs on purpose). Blobs are never
 * written in place: a new one is renamed into its name.
 */
export class BlobStore {
  /** Blobs this process wrote or verified: a second put of one is free. */
  private readonly known = new Set<string>();

  constructor(readonly dir: string) {}

  pathOf(hash: string): string {
    return join(this.dir, "blobs", hash.slice(0, 2), `${hash}.zst`);
  }

  /** Stores `bytes` (once per content) and returns its reference. */
  async put(bytes: Uint8Array): Promise<ContentRef & { kind: "blob" }> {
    const hash = sha256(bytes);
    const ref = { kind: "blob" as const, sha256: hash, size: bytes.byteLength };
    if (this.known.has(hash)) return ref;
    const file = this.pathOf(hash);
    if (await this.exists(file)) {
      this.known.add(hash);
      return ref;
    }
    await this.assertNoLinks(join(this.dir, "blobs", hash.slice(0, 2)));
    await mkdir(join(this.dir, "blobs", hash.slice(0, 2)), { recursive: true });
    const packed = await zstd().compress(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), ZSTD_LEVEL);
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(packed);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, file);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    this.known.add(hash);
    return ref;
  }

  /** The bytes of a blob, checked against its hash; a missing, linked or forged blob is a BlobError. */
  async get(hash: string): Promise<Buffer> {
    if (!/^[0-9a-f]{64}$/.test(hash)) throw new BlobError(`not a blob hash: ${JSON.stringify(hash)}`);
    const file = this.pathOf(hash);
    await this.assertNoLinks(file);
    let packed: Buffer;
    try {
      const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const st = await handle.stat();
        if (!st.isFile()) throw new BlobError(`blob ${hash} is not a regular file`);
        packed = await handle.readFile();
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (error instanceof BlobError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") throw new BlobError(`blob ${hash} is missing from ${this.dir}`);
      if (code === "ELOOP") throw new BlobError(`refused: blob ${hash} is a symbolic link`);
      throw error;
    }
    let bytes: Buffer;
    try {
      bytes = await zstd().decompress(packed);
    } catch {
      throw new BlobError(`blob ${hash} is not a zstd frame: refused`);
    }
    if (sha256(bytes) !== hash)
      throw new BlobError(`blob ${hash} does not match its hash (forged or damaged): refused`);
    this.known.add(hash);
    return bytes;
  }

  /** Bytes on disk (for the figures). */
  async diskBytes(): Promise<number> {
    let total = 0;
    const walk = async (dir: string): Promise<void> => {
      for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const p = join(dir, e.name);
        if (e.isDirectory()) await walk(p);
        else if (e.isFile()) total += (await lstat(p)).size;
      }
    };
    await walk(this.dir);
    return total;
  }

  private async exists(file: string): Promise<boolean> {
    try {
      const st = await lstat(file);
      if (!st.isFile()) throw new BlobError(`refused: ${file} is not a regular file`);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
  }

  /** No component from the checkpoints folder down to `path` may be a link (a link there could aim writes or reads anywhere). */
  private async assertNoLinks(path: string): Promise<void> {
    const rel = path.slice(this.dir.length + 1).split(/[\\/]/);
    let current = this.dir;
    for (const part of ["", ...rel]) {
      if (part !== "") current = join(current, part);
      try {
        const st = await lstat(current);
        if (st.isSymbolicLink()) throw new BlobError(`refused: ${current} is a symbolic link`);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
        throw error;
      }
    }
  }
}
