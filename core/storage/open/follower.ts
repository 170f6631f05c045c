import type { Session } from "../../session";
import { footerSummary } from "./load-log";
import type { StorageContext } from "../context";
import { isErrno } from "../fs/fs-seam";
import type { SessionPaths } from "../layout";
import { parseEventLog } from "../records";
import { listSegments, readSegment } from "../segments-dir";

/**
 * Keeps a read-only session in step with the writer in another process by polling
 * `active.jsonl`: appended bytes are parsed from the last offset; a replaced file (the
 * writer closed a prefix) is caught up through the new segment, then re-read.
 */
export class ActiveFollower {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly ctx: StorageContext,
    private readonly paths: SessionPaths,
    private readonly session: Session,
    private offset: number,
    private ino: number | undefined,
    private readonly onError: (error: Error) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.poll(), this.ctx.followMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      let stat;
      try {
        stat = await this.ctx.fs.stat(this.paths.active);
      } catch (error) {
        if (isErrno(error, "ENOENT")) return;
        throw error;
      }
      if (this.ino !== undefined && stat.ino !== this.ino) {
        await this.catchUpSegments();
        this.offset = 0;
      } else if (stat.size < this.offset) {
        this.offset = 0;
      }
      this.ino = stat.ino;
      if (stat.size > this.offset) await this.readFrom(this.offset, stat.size);
    } catch (error) {
      this.onError(error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.busy = false;
    }
  }

  private async catchUpSegments(): Promise<void> {
    for (const name of await listSegments(this.ctx, this.paths)) {
      if (name.last <= this.session.baseSeq) continue;
      const segment = await readSegment(this.ctx, this.paths, name);
      for (const e of segment.events) if (e.seq > this.session.lastSeq) this.session.applyExternal(e);
      this.session.closePrefix(footerSummary(segment.footer));
    }
  }

  private async readFrom(start: number, end: number): Promise<void> {
    const handle = await this.ctx.fs.open(this.paths.active, "r");
    const buf = Buffer.alloc(end - start);
    try {
      let done = 0;
      while (done < buf.length) {
        const { bytesRead } = await handle.read(buf, done, buf.length - done, start + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
    } finally {
      await handle.close();
    }
    // Only complete lines; a partial one is the writer mid-batch and is read next time.
    const cut = buf.lastIndexOf(0x0a) + 1;
    const parsed = parseEventLog(buf.subarray(0, cut));
    for (const e of parsed.events) if (e.seq > this.session.lastSeq) this.session.applyExternal(e);
    this.offset = start + parsed.validEnd;
  }
}
