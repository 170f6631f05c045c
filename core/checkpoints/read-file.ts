import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { MAX_BLOB_BYTES } from "./blob-store";

export type FileRead = { kind: "absent" } | { kind: "bytes"; bytes: Buffer } | { kind: "unreadable"; reason: string };

/** A workspace file as it is now (no link followed): its bytes, absent, or why it cannot be kept. */
export async function readWorkspaceFile(abs: string): Promise<FileRead> {
  let handle;
  try {
    handle = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    if (code === "ELOOP") return { kind: "unreadable", reason: "it is a symbolic link" };
    return { kind: "unreadable", reason: (error as Error).message };
  }
  try {
    const st = await handle.stat();
    if (st.isDirectory()) return { kind: "unreadable", reason: "it is a directory" };
    if (!st.isFile()) return { kind: "unreadable", reason: "it is not a regular file" };
    if (st.size > MAX_BLOB_BYTES)
      return { kind: "unreadable", reason: `it is larger than ${MAX_BLOB_BYTES / 1024 / 1024} MiB` };
    return { kind: "bytes", bytes: await handle.readFile() };
  } finally {
    await handle.close();
  }
}
