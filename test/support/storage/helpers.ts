import type { Session } from "../../../core/session";
import { nodeFs, type FsSeam, type OpenFlags } from "../../../core/storage/fs/fs-seam";
import { tempDir } from "../temp";

export function tempRoot(t: { after(fn: () => void): void }): string {
  return tempDir(t, "downcity-storage-");
}

/** A real fs seam that counts reads by path and can fail writes / fsyncs on demand. */
export function countingFs(): FsSeam & {
  reads: string[];
  fail: { write: number; sync: number };
  syncs: number;
  written: number;
} {
  const seam = {
    ...nodeFs,
    reads: [] as string[],
    fail: { write: 0, sync: 0 },
    syncs: 0,
    written: 0,
    async readFile(path: string) {
      seam.reads.push(path);
      return nodeFs.readFile(path);
    },
    readTextSync(path: string) {
      seam.reads.push(path);
      return nodeFs.readTextSync(path);
    },
    async open(path: string, flags: OpenFlags) {
      const handle = await nodeFs.open(path, flags);
      return {
        write: async (buffer: Buffer, offset: number, length: number, position: number) => {
          if (seam.fail.write > 0) {
            seam.fail.write--;
            // A real partial write first, then the failure: the file must be cut back.
            await handle.write(buffer, offset, Math.ceil(length / 2), position);
            throw Object.assign(new Error("injected write failure"), { code: "EIO" });
          }
          const r = await handle.write(buffer, offset, length, position);
          seam.written += r.bytesWritten;
          return r;
        },
        read: (b: Buffer, o: number, l: number, p: number) => {
          seam.reads.push(path);
          return handle.read(b, o, l, p);
        },
        sync: async () => {
          if (seam.fail.sync > 0) {
            seam.fail.sync--;
            throw Object.assign(new Error("injected fsync failure"), { code: "EIO" });
          }
          seam.syncs++;
          return handle.sync();
        },
        truncate: (len: number) => handle.truncate(len),
        stat: () => handle.stat(),
        close: () => handle.close(),
      };
    },
  };
  return seam;
}

export function user(session: Session, text: string) {
  return session.append("user/message", { content: [{ type: "text", text }] }, { surface: "append" });
}

export function assistant(session: Session, text: string, extra: Record<string, unknown> = {}) {
  return session.append(
    "assistant/message",
    { content: [{ type: "text", text }], model: "m1", ...extra },
    { surface: "append" },
  );
}
