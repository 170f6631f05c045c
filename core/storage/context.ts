import { nodeFs, type FsSeam } from "./fs/fs-seam";
import type { LockOptions } from "./fs/lock";
import type { WriterOptions } from "./write/active-writer";

/** Everything the storage modules share: where, how, and when. */
export interface StorageContext {
  root: string;
  fs: FsSeam;
  clock: () => number;
  lock: LockOptions;
  writer: WriterOptions;
  /** Minimum time between two meta.json writes of one session. */
  metaIntervalMs: number;
  /** Poll interval of read-only followers. */
  followMs: number;
  /** meta.json reads per chunk while listing (the event loop runs between chunks). */
  listConcurrency: number;
}

export interface StorageOptions {
  /** Workspace folder; sessions live under `<root>/.downcity`. */
  root: string;
  fs?: FsSeam;
  clock?: () => number;
  batchWindowMs?: number;
  metaIntervalMs?: number;
  followMs?: number;
  lockStaleMs?: number;
  lockHeartbeatMs?: number;
  listConcurrency?: number;
  /** Attempts `flush()` makes before it rejects (the batch stays queued and is retried). */
  flushAttempts?: number;
  retryMs?: number;
}

/** The store's settings with their defaults (shared by the persistence and a bare list). */
export function createStorageContext(options: StorageOptions): StorageContext {
  const clock = options.clock ?? Date.now;
  return {
    root: options.root,
    fs: options.fs ?? nodeFs,
    clock,
    lock: { staleMs: options.lockStaleMs ?? 30_000, heartbeatMs: options.lockHeartbeatMs ?? 5_000, clock },
    writer: {
      batchWindowMs: options.batchWindowMs ?? 200,
      retryMs: options.retryMs ?? 50,
      maxRetryMs: 5_000,
      flushAttempts: options.flushAttempts ?? 4,
    },
    metaIntervalMs: options.metaIntervalMs ?? 2_000,
    followMs: options.followMs ?? 500,
    listConcurrency: options.listConcurrency ?? 256,
  };
}
