import type { SessionPaths } from "../layout";
import type { StorageContext } from "../context";
import { writeAtomic } from "../fs/atomic";
import { encodeMeta, type SessionMeta } from "../meta";

/**
 * meta.json of one hot session: written at most once per `metaIntervalMs` after
 * batches (a list accelerator; the log is the truth), and on demand (close, compaction).
 */
export class MetaWriter {
  dirty = false;
  private lastWrite: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: StorageContext,
    private readonly paths: SessionPaths,
    private readonly snapshot: () => SessionMeta,
    /** Runs the write on the session's serial file chain. */
    private readonly serial: (fn: () => Promise<void>) => Promise<void>,
    private readonly onError: (error: Error) => void,
    fresh: boolean,
  ) {
    this.lastWrite = fresh ? 0 : ctx.clock();
  }

  /** After a durable batch: schedules a write no sooner than the interval allows. */
  touched(): void {
    this.dirty = true;
    if (this.timer) return;
    const wait = this.lastWrite + this.ctx.metaIntervalMs - this.ctx.clock();
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (this.dirty) this.serial(() => this.write()).catch((e) => this.onError(e as Error));
      },
      Math.max(0, wait),
    );
    this.timer.unref();
  }

  /** Counts of a snapshot refer to durable events only when written after a flush; good enough for an accelerator. */
  async write(): Promise<void> {
    this.dirty = false;
    this.lastWrite = this.ctx.clock();
    await writeAtomic(this.ctx.fs, this.paths.meta, encodeMeta(this.snapshot()));
  }

  /** Best-effort write: failures are reported, never thrown (meta.json never blocks the log). */
  async tryWrite(): Promise<void> {
    await this.write().catch((e) => this.onError(e as Error));
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
