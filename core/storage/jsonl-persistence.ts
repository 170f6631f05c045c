import type {
  DamagedFolder,
  Draft,
  ForkOptions,
  HistoryPage,
  ListFilter,
  LocalSessionRef,
  RepairReport,
  Session,
  SessionChange,
  SessionListItem,
  SessionPersistence,
  SessionStore,
} from "../session";
import type { Unsubscribe } from "../util/emitter";
import { createStorageContext, type StorageContext, type StorageOptions } from "./context";
import { SessionNotFoundError, SessionRefusedError } from "./errors";
import { HotSessions } from "./hot";
import { sessionPaths } from "./layout";
import { listStored } from "./list/list";
import { historyPage } from "./open/history";
import { openSession } from "./open/open";
import { existsSync, fork, move, remove, removeDamaged } from "./write/manage";
import { register } from "./write/register";
import { closePrefix, discardDraft, flush, releaseEntry, writeDraft } from "./write/writes";

export type JsonlPersistenceOptions = StorageOptions;

export { SessionNotFoundError, SessionRefusedError };

/**
 * The JSONL/zstd session backend in the Downcity layout (DESIGN §4): append-only
 * Active log with a write-behind queue, immutable zstd segments, draft file, crash
 * recovery, meta.json for lists, one writer per session. A facade: the write path is
 * in `write/` (register, writes, manage: fork, archive, delete), open and recovery and
 * history pages in `open/`, lists in `list/`, the shared hot table in `hot.ts`.
 */
export class JsonlSessionPersistence implements SessionPersistence {
  readonly ctx: StorageContext;
  private readonly hot: HotSessions;
  private readonly releasing = new Map<Session, Promise<void>>();

  constructor(options: JsonlPersistenceOptions) {
    this.ctx = createStorageContext(options);
    this.hot = new HotSessions(this.ctx);
  }

  onChange(listener: (change: SessionChange) => void): Unsubscribe {
    return this.hot.emitter.on("change", listener);
  }
  /** Write failures (retried in the background), follower errors, lost locks. */
  onError(listener: (error: Error, session: Session | undefined) => void): Unsubscribe {
    return this.hot.emitter.on("error", listener);
  }

  attach(store: SessionStore): Unsubscribe {
    const offs = [
      store.on("created", (session) => {
        register(this.hot, session, sessionPaths(this.ctx.root, session.agentId, session.id), { fresh: true });
        this.hot.emitChange("created", session.agentId, session.id, this.describe(session));
      }),
      store.on("flush", (session) => this.flush(session)),
      store.on(
        "disposed",
        (session) => void this.release(session).catch((e) => this.hot.emitError(e as Error, session)),
      ),
    ];
    return () => offs.forEach((off) => off());
  }

  existsSync(ref: LocalSessionRef): boolean {
    return existsSync(this.hot, ref);
  }

  // ---------------------------------------------------------------- write path (write/writes.ts)

  flush(session: Session): Promise<void> {
    return flush(this.hot, session);
  }
  writeDraft(session: Session, draft: Draft): Promise<void> {
    return writeDraft(this.hot, session, draft);
  }
  /** Called after the final assistant/message was appended: makes it durable, then drops the draft. */
  discardDraft(session: Session): Promise<void> {
    return discardDraft(this.hot, session);
  }
  /** Compaction's durable half (see `closePrefixToSegment`); meta.json follows, best-effort. */
  closePrefix(session: Session, throughSeq: number, summaryText: string): Promise<void> {
    return closePrefix(this.hot, session, throughSeq, summaryText);
  }

  // ---------------------------------------------------------------- open and recovery (open/open.ts)

  open(ref: LocalSessionRef): Promise<{ session: Session; report: RepairReport }> {
    return openSession(this.hot, ref);
  }

  // ---------------------------------------------------------------- views

  describe(session: Session): SessionListItem {
    return this.hot.describe(session);
  }

  list(filter: ListFilter = {}): Promise<SessionListItem[]> {
    return listStored(this.ctx, filter);
  }

  messages(ref: LocalSessionRef, options: { beforeSequence?: number } = {}, hot?: Session): Promise<HistoryPage> {
    return historyPage(this.hot, ref, options, hot);
  }

  residentBytes(session: Session): number {
    const entry = this.hot.entries.get(session);
    const summary = Buffer.byteLength(session.summary?.text ?? "", "utf8");
    // Derived messages share the events' frozen content; each costs a small wrapper.
    return summary + (entry?.activeBytes ?? 0) + session.deriveMessages().length * 96;
  }

  // ---------------------------------------------------------------- fork, archive, delete (write/manage.ts)

  /**
   * A damaged session (hot and read-only, or cold) is refused unless `validPrefix` asks
   * for its valid prefix; then the fork says so in its `forkedFrom.validPrefix`.
   */
  fork(ref: LocalSessionRef, options: ForkOptions = {}, hot?: Session): Promise<SessionListItem> {
    return fork(this.hot, ref, options, hot);
  }
  archive(ref: LocalSessionRef): Promise<void> {
    return move(this.hot, ref, "sessions", "archived");
  }
  unarchive(ref: LocalSessionRef): Promise<void> {
    return move(this.hot, ref, "archived", "sessions");
  }
  delete(ref: LocalSessionRef): Promise<void> {
    return remove(this.hot, ref);
  }
  /** Deletes a folder a list reported damaged, after listing it again (see `removeDamaged`). */
  deleteDamaged(folder: DamagedFolder): Promise<void> {
    return removeDamaged(this.hot, folder);
  }

  // ---------------------------------------------------------------- lifecycle

  /** Flushes, writes meta.json, closes files and releases the lock of one session. */
  release(session: Session): Promise<void> {
    let pending = this.releasing.get(session);
    if (!pending) {
      pending = releaseEntry(this.hot, session).finally(() => this.releasing.delete(session));
      this.releasing.set(session, pending);
    }
    return pending;
  }

  async close(): Promise<void> {
    const results = await Promise.allSettled([...this.hot.entries.keys()].map((s) => this.release(s)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** Test and benchmark access to a hot session's writer counters. */
  writerStats(session: Session): { batches: number; bytes: number; failures: number; queued: number } | undefined {
    const writer = this.hot.entries.get(session)?.writer;
    return writer ? { ...writer.counters, queued: writer.queued } : undefined;
  }

  /** Polls a read-only follower now (tests; the timer does it otherwise). */
  async follow(session: Session): Promise<void> {
    await this.hot.entries.get(session)?.follower?.poll();
  }
}
