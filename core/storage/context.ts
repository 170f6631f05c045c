import type { FsSeam } from "./fs-seam";
import type { LockOptions } from "./lock";
import type { WriterOptions } from "./active-writer";

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
