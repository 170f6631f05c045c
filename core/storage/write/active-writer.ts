import type { SessionEvent } from "../../protocol";
import { writeFully } from "../fs/atomic";
import type { FileHandleSeam } from "../fs/fs-seam";
import { encodeRecord } from "../records";

export interface BatchTarget {
  /** Publishes the first batch (creates the file); returns an open handle positioned after it. */
  materialise(batch: Buffer): Promise<FileHandleSeam>;
  /** Called after every durable batch. */
  onDurable(lastSeq: number, bytes: number): void;
  onError(error: Error): void;
}

export interface WriterOptions {
  batchWindowMs: number;
  /** Backoff of background retries after a failed batch. */
  retryMs: number;
  maxRetryMs: number;
  /** Attempts `flush()` makes before it rejects (the batch stays queued). */
  flushAttempts: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Who retries a failed batch. Exactly one owner at a time, so two retry loops never
 * race over one batch: the background timer, a `flush()` in progress, or nobody (a
 * flush gave up: the batch waits for the next append or flush).
 */
type RetryOwner = "background" | "flush" | "paused";

/**
 * The write-behind queue of one session's `active.jsonl` (DESIGN §4). Events queue in
 * memory; a fixed window from the first queued event (not extended by later ones)
 * ends in one positional write + one fsync. A failed write or fsync truncates the file
 * back to the batch start and keeps the batch for retry, so the file never holds half
 * a batch and a seq is never written twice. All file work runs on one serial chain.
 * A failed batch has one retry owner (see `RetryOwner`).
 */
export class ActiveLogWriter {
  private pending: { seq: number; line: Buffer }[] = [];
  /** The batch being written: still queued until it is durable. */
  private inflight = 0;
  private owner: RetryOwner = "background";
  private flushing = 0;
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private handle: FileHandleSeam | undefined;
  private failures = 0;
  private closed = false;
  /** Durable length of active.jsonl. */
  size = 0;
  durableSeq: number;
  /** Counters for tests and benchmarks. */
  readonly counters = { batches: 0, bytes: 0, failures: 0 };

  constructor(
    private readonly target: BatchTarget,
    private readonly options: WriterOptions,
    durableSeq: number,
    existing?: { handle: FileHandleSeam; size: number },
  ) {
    this.durableSeq = durableSeq;
    if (existing) {
      this.handle = existing.handle;
      this.size = existing.size;
    }
  }

  get materialised(): boolean {
    return this.handle !== undefined;
  }
  /** Events not yet durable, the batch being written included. */
  get queued(): number {
    return this.pending.length + this.inflight;
  }

  /** Queues an event; returns its record size. */
  enqueue(event: SessionEvent): number {
    if (this.closed) return 0;
    const line = encodeRecord(event);
    this.pending.push({ seq: event.seq, line });
    // A new append ends the pause after a failed flush; the retry timer of a failed
    // batch (if any) is kept rather than replaced, so the window is never extended.
    if (this.owner === "paused") this.owner = "background";
    if (!this.timer && this.flushing === 0) this.schedule(this.options.batchWindowMs);
    return line.length;
  }

  get pendingBytes(): number {
    let n = 0;
    for (const p of this.pending) n += p.line.length;
    return n;
  }

  /** Drains now and resolves when everything queued so far is durable. */
  /**
   * Drains now and resolves when everything queued so far is durable. While it runs it
   * owns retries; when it gives up the batch stays queued and background retries stay
   * paused until the next append or flush.
   */
  async flush(): Promise<void> {
    this.clearTimer();
    this.flushing++;
    this.owner = "flush";
    let failed = false;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          await this.exclusive(() => this.writeBatch());
          return;
        } catch (error) {
          if (attempt >= this.options.flushAttempts || this.closed) {
            failed = true;
            throw error;
          }
          await sleep(this.backoff(attempt));
        }
      }
    } finally {
      this.flushing--;
      if (this.flushing === 0) {
        this.owner = failed ? "paused" : "background";
        // Appends made while the flush ran wait for their own window.
        if (!failed && this.pending.length > 0 && !this.timer) this.schedule(this.options.batchWindowMs);
      }
    }
  }

  /** Runs `fn` on the serial file chain, after everything queued before it is written. */
  exclusive<T>(fn: (handle: FileHandleSeam | undefined) => Promise<T>): Promise<T> {
    const run = this.chain.then(
      () => fn(this.handle),
      () => fn(this.handle),
    );
    this.chain = run.catch(() => {});
    return run;
  }

  /** Swaps the file under the writer (Active rewrite); call inside `exclusive`. */
  replaceHandle(handle: FileHandleSeam, size: number): void {
    this.handle = handle;
    this.size = size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.clearTimer();
    await this.exclusive(async () => {
      await this.handle?.close().catch(() => {});
      this.handle = undefined;
    });
  }

  private schedule(ms: number): void {
    this.clearTimer();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.exclusive(() => this.writeBatch()).catch(() => {
        // Reported through onError; retried here only while the background owns retries.
        if (this.owner === "background" && this.flushing === 0 && !this.closed && !this.timer)
          this.schedule(this.backoff(this.failures));
      });
    }, ms);
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private backoff(attempt: number): number {
    return Math.min(this.options.maxRetryMs, this.options.retryMs * 2 ** (attempt - 1));
  }

  private async writeBatch(): Promise<void> {
    if (this.pending.length === 0 || this.closed) return;
    const batch = this.pending;
    this.pending = [];
    this.inflight = batch.length;
    const data = Buffer.concat(batch.map((b) => b.line));
    const start = this.size;
    try {
      if (!this.handle) {
        this.handle = await this.target.materialise(data);
      } else {
        await writeFully(this.handle, data, start);
        await this.handle.sync();
      }
    } catch (error) {
      // Never half a batch: cut the file back, put the batch back in front.
      if (this.handle) await this.handle.truncate(start).catch(() => {});
      this.pending = batch.concat(this.pending);
      this.inflight = 0;
      this.failures++;
      this.counters.failures++;
      const err = error instanceof Error ? error : new Error(String(error));
      this.target.onError(err);
      throw err;
    }
    this.inflight = 0;
    this.failures = 0;
    this.size = start + data.length;
    this.durableSeq = batch[batch.length - 1]!.seq;
    this.counters.batches++;
    this.counters.bytes += data.length;
    this.target.onDurable(this.durableSeq, data.length);
    // Events queued while this batch was written wait for their own window.
    if (this.pending.length > 0 && !this.timer && this.flushing === 0) this.schedule(this.options.batchWindowMs);
  }
}
