import { randomUUID } from "node:crypto";
import { dirname } from "node:path";
import {
  DEFAULT_AGENT_ID,
  ReadOnlySessionError,
  type DamagedFolder,
  Session,
  type Draft,
  type ForkOptions,
  type HistoryPage,
  type ListFilter,
  type RepairReport,
  type SessionChange,
  type SessionListItem,
  type SessionPersistence,
  type LocalSessionRef,
  type SessionStore,
} from "../session";
import { Emitter, type Unsubscribe } from "../util/emitter";
import { ActiveLogWriter } from "./active-writer";
import { fsyncDir, publishNew, readIfExists, writeAtomic } from "./atomic";
import { closePrefixToSegment } from "./close-prefix";
import { createStorageContext, type StorageContext, type StorageOptions } from "./context";
import { ActiveFollower } from "./follower";
import { deleteSessionDir, moveSessionDir } from "./directory-ops";
import { SessionNotFoundError, SessionRefusedError } from "./errors";
import { forkSession } from "./fork";
import { isErrno, type FileHandleSeam } from "./fs-seam";
import { isHashedName } from "./id-codec";
import { folderPaths, sessionPaths, type Area, type SessionPaths } from "./layout";
import { listStored } from "./list";
import { itemFromMeta } from "./list-item";
import { loadLog } from "./load-log";
import { describeOwner, WriterLock } from "./lock";
import { eventModel } from "./log-summary";
import { localTimeZone, type SessionMeta } from "./meta";
import { MetaWriter } from "./meta-writer";
import { assertNoLinks } from "./no-links";
import { applyOpen, assertHasLog, planOpen, writePlannedMeta } from "./open-session";
import { listSegments, readSegment } from "./segments-dir";

export type JsonlPersistenceOptions = StorageOptions;

export { SessionNotFoundError, SessionRefusedError };

/** Per-session state of a hot session. */
interface Entry {
  session: Session;
  paths: SessionPaths;
  writer?: ActiveLogWriter;
  lock?: WriterLock;
  follower?: ActiveFollower;
  model: string | undefined;
  timeZone: string;
  forkedFrom?: SessionMeta["forkedFrom"];
  segmentBytes: number;
  /** Serialised bytes of the events held in memory (Active). */
  activeBytes: number;
  meta: MetaWriter;
  /** Why the stored log is damaged (the session is then read-only). */
  damage?: { reason: string; inSegments: boolean };
  detach: Unsubscribe[];
}

type Events = { change: [SessionChange]; error: [Error, Session | undefined] };

const refAgent = (ref: LocalSessionRef) => ref.agentId ?? DEFAULT_AGENT_ID;

/**
 * The JSONL/zstd session backend in the Downcity layout (DESIGN §4): append-only
 * Active log with a write-behind queue, immutable zstd segments, draft file, crash
 * recovery, meta.json for lists, one writer per session.
 */
export class JsonlSessionPersistence implements SessionPersistence {
  readonly ctx: StorageContext;
  private readonly entries = new Map<Session, Entry>();
  private readonly emitter = new Emitter<Events>();
  private readonly releasing = new Map<Session, Promise<void>>();

  constructor(options: JsonlPersistenceOptions) {
    this.ctx = createStorageContext(options);
  }

  onChange(listener: (change: SessionChange) => void): Unsubscribe {
    return this.emitter.on("change", listener);
  }
  /** Write failures (retried in the background), follower errors, lost locks. */
  onError(listener: (error: Error, session: Session | undefined) => void): Unsubscribe {
    return this.emitter.on("error", listener);
  }

  attach(store: SessionStore): Unsubscribe {
    const offs = [
      store.on("created", (session) => {
        this.register(session, sessionPaths(this.ctx.root, session.agentId, session.id), { fresh: true });
        this.emitChange("created", session.agentId, session.id, this.describe(session));
      }),
      store.on("flush", (session) => this.flush(session)),
      store.on(
        "disposed",
        (session) => void this.release(session).catch((e) => this.emitter.emit("error", e as Error, session)),
      ),
    ];
    return () => offs.forEach((off) => off());
  }

  existsSync(ref: LocalSessionRef): boolean {
    const agentId = refAgent(ref);
    return (["sessions", "archived"] as const).some((area) =>
      this.ctx.fs.existsSync(sessionPaths(this.ctx.root, agentId, ref.sessionId, area).dir),
    );
  }

  // ---------------------------------------------------------------- write path

  private register(
    session: Session,
    paths: SessionPaths,
    init: {
      fresh: boolean;
      handle?: FileHandleSeam;
      size?: number;
      meta?: SessionMeta;
      segmentBytes?: number;
      lock?: WriterLock;
    },
  ): Entry {
    const meta = new MetaWriter(
      this.ctx,
      paths,
      () => this.metaOf(entry),
      (fn) => (entry.writer ? entry.writer.exclusive(fn) : fn()),
      (error) => this.emitter.emit("error", error, session),
      init.fresh,
    );
    const entry: Entry = {
      session,
      paths,
      model: init.meta?.model,
      timeZone: init.meta?.timeZone ?? localTimeZone(),
      segmentBytes: init.segmentBytes ?? 0,
      activeBytes: init.size ?? 0,
      meta,
      detach: [],
    };
    if (init.meta?.forkedFrom) entry.forkedFrom = init.meta.forkedFrom;
    if (init.lock) entry.lock = init.lock;
    if (!session.readOnly) {
      const existing = init.handle ? { handle: init.handle, size: init.size ?? 0 } : undefined;
      entry.writer = new ActiveLogWriter(
        {
          materialise: (batch) => this.materialise(entry, batch),
          onDurable: () => this.afterBatch(entry),
          onError: (error) => this.emitter.emit("error", error, session),
        },
        this.ctx.writer,
        session.lastSeq,
        existing,
      );
      entry.detach.push(
        session.on("event", (event) => {
          entry.activeBytes += entry.writer!.enqueue(event);
          entry.model = eventModel(event) ?? entry.model;
        }),
        session.on("read-only", () => void entry.writer?.close()),
        session.on("running", () => this.emitChange("updated", session.agentId, session.id, this.describe(session))),
      );
    }
    this.entries.set(session, entry);
    return entry;
  }

  /** First publication: dirs, writer lock, then Active via temp → fsync → link → fsync dir. */
  private async materialise(entry: Entry, batch: Buffer): Promise<FileHandleSeam> {
    const { fs } = this.ctx;
    const { paths, session } = entry;
    // mkdir follows links: a linked `.downcity/` part would send the session elsewhere.
    await assertNoLinks(this.ctx, paths);
    await fs.mkdir(paths.messages);
    if (!entry.lock) {
      const result = await WriterLock.acquire(fs, paths.lock, this.ctx.lock, (reason) => this.lockLost(entry, reason));
      if ("heldBy" in result) {
        const reason = `open for writing elsewhere (${describeOwner(result.heldBy)})`;
        session.setReadOnly(reason);
        throw new ReadOnlySessionError(`session ${session.id}: ${reason}`);
      }
      entry.lock = result.lock;
    }
    if (isHashedName(paths.name)) await writeAtomic(fs, paths.idFile, Buffer.from(session.id, "utf8"));
    try {
      await publishNew(fs, paths.active, batch);
    } catch (error) {
      // A retry after a failure past the link: the file already holds exactly this batch.
      const existing = isErrno(error, "EEXIST") ? await readIfExists(fs, paths.active) : undefined;
      if (!existing?.equals(batch)) throw error;
    }
    for (const dir of [paths.dir, dirname(paths.dir), dirname(dirname(paths.dir))]) await fsyncDir(fs, dir);
    const handle = await fs.open(paths.active, "r+");
    await entry.meta.tryWrite();
    return handle;
  }

  private lockLost(entry: Entry, reason: string): void {
    entry.session.setReadOnly(reason);
    this.emitter.emit("error", new ReadOnlySessionError(`session ${entry.session.id}: ${reason}`), entry.session);
  }

  private afterBatch(entry: Entry): void {
    entry.meta.touched();
    this.emitChange("updated", entry.session.agentId, entry.session.id, this.describe(entry.session));
  }

  private metaOf(entry: Entry): SessionMeta {
    const { session } = entry;
    const title = session.title;
    const meta: SessionMeta = {
      version: 1,
      sessionId: session.id,
      agentId: session.agentId,
      createdAt: session.createdAt,
      updatedAt: session.stats.updatedAt,
      messageCount: session.stats.messageCount,
      historyBytes: entry.segmentBytes + (entry.writer?.size ?? 0),
      segmentBytes: entry.segmentBytes,
      timeZone: entry.timeZone,
      lastSeq: entry.writer?.durableSeq ?? session.lastSeq,
    };
    if (title.title !== undefined) meta.title = title.title;
    if (title.source !== undefined) meta.titleSource = title.source;
    if (entry.model !== undefined) meta.model = entry.model;
    if (entry.forkedFrom) meta.forkedFrom = entry.forkedFrom;
    return meta;
  }

  async flush(session: Session): Promise<void> {
    const entry = this.entries.get(session);
    if (!entry?.writer) return;
    await entry.writer.flush();
  }

  private writable(session: Session): Entry & { writer: ActiveLogWriter } {
    const entry = this.entries.get(session);
    if (!entry) throw new Error(`session ${session.id} is not open in this store`);
    if (session.readOnly !== undefined || !entry.writer)
      throw new ReadOnlySessionError(`session ${session.id} is read-only: ${session.readOnly}`);
    return entry as Entry & { writer: ActiveLogWriter };
  }

  /** Makes sure the session directory, lock and Active exist (a draft may precede the first flush). */
  private async ensureMaterialised(entry: Entry & { writer: ActiveLogWriter }): Promise<void> {
    await entry.writer.flush();
    await entry.writer.exclusive(async (handle) => {
      if (!handle) entry.writer.replaceHandle(await this.materialise(entry, Buffer.alloc(0)), 0);
    });
  }

  async writeDraft(session: Session, draft: Draft): Promise<void> {
    const entry = this.writable(session);
    if (!entry.writer.materialised) await this.ensureMaterialised(entry);
    const stored: Record<string, unknown> = {
      draftId: draft.draftId,
      blocks: draft.blocks,
      time: this.ctx.clock(),
      afterSeq: session.lastSeq,
    };
    if (draft.provider !== undefined) stored.provider = draft.provider;
    if (draft.model !== undefined) stored.model = draft.model;
    const data = Buffer.from(JSON.stringify(stored), "utf8");
    await entry.writer.exclusive(() => writeAtomic(this.ctx.fs, entry.paths.draft, data));
  }

  /** Called after the final assistant/message was appended: makes it durable, then drops the draft. */
  async discardDraft(session: Session): Promise<void> {
    const entry = this.writable(session);
    await entry.writer.flush();
    await entry.writer.exclusive(() =>
      this.ctx.fs.unlink(entry.paths.draft).catch((e) => (isErrno(e, "ENOENT") ? undefined : Promise.reject(e))),
    );
  }

  /** Compaction's durable half (see `closePrefixToSegment`); meta.json follows, best-effort. */
  async closePrefix(session: Session, throughSeq: number, summaryText: string): Promise<void> {
    const entry = this.writable(session);
    await entry.writer.flush();
    await entry.writer.exclusive(async (handle) => {
      entry.segmentBytes += await closePrefixToSegment(
        this.ctx,
        entry.paths,
        session,
        entry.writer,
        handle,
        throughSeq,
        summaryText,
        entry.model,
      );
      entry.activeBytes = entry.writer.size + entry.writer.pendingBytes;
      await entry.meta.tryWrite();
    });
    this.emitChange("updated", session.agentId, session.id, this.describe(session));
  }

  // ---------------------------------------------------------------- open

  private async findDir(ref: LocalSessionRef): Promise<SessionPaths | undefined> {
    for (const area of ["sessions", "archived"] as const) {
      const paths = sessionPaths(this.ctx.root, refAgent(ref), ref.sessionId, area);
      try {
        if ((await this.ctx.fs.stat(paths.dir)).isDirectory()) return paths;
      } catch (error) {
        if (!isErrno(error, "ENOENT", "ENOTDIR")) throw error;
      }
    }
    return undefined;
  }

  /**
   * The one open path (cold open, after a crash or not): refuse links, lock, plan the
   * whole recovery from what is on disk, then apply it under the lock (see
   * `open-session.ts`). Damage opens read-only with every byte kept; a failed open
   * changes nothing and registers nothing.
   */
  async open(ref: LocalSessionRef): Promise<{ session: Session; report: RepairReport }> {
    const agentId = refAgent(ref);
    const paths = await this.findDir(ref);
    if (!paths)
      throw new SessionNotFoundError(
        `no session ${JSON.stringify(ref.sessionId)} for agent ${JSON.stringify(agentId)}`,
      );
    await assertNoLinks(this.ctx, paths);
    await assertHasLog(this.ctx, paths);
    const actions: string[] = [];
    const reasons: string[] = [];
    let lock: WriterLock | undefined;
    let entryRef: Entry | undefined;
    if (paths.area === "archived") reasons.push("archived (unarchive it to continue)");
    else {
      const result = await WriterLock.acquire(
        this.ctx.fs,
        paths.lock,
        this.ctx.lock,
        (reason) => entryRef && this.lockLost(entryRef, reason),
      );
      if ("lock" in result) {
        lock = result.lock;
        if (result.tookOver) actions.push(result.tookOver);
      } else reasons.push(`open for writing elsewhere (${describeOwner(result.heldBy)})`);
    }
    try {
      const plan = await planOpen(this.ctx, paths, reasons, actions);
      const { session } = plan;
      if (plan.readOnly !== undefined) {
        await lock?.release();
        lock = undefined;
        const entry = this.register(session, paths, {
          fresh: false,
          ...(plan.oldMeta && { meta: plan.oldMeta }),
          segmentBytes: plan.oldMeta?.segmentBytes ?? 0,
          size: plan.validEnd,
        });
        if (plan.damage) entry.damage = { reason: plan.damage, inSegments: plan.segmentDamage === true };
        else if (paths.area === "sessions") {
          const ino = await this.ctx.fs.stat(paths.active).then(
            (s) => s.ino,
            () => undefined,
          );
          entry.follower = new ActiveFollower(this.ctx, paths, session, plan.validEnd, ino, (e) =>
            this.emitter.emit("error", e, session),
          );
          entry.follower.start();
        }
        return { session, report: { repaired: false, actions, readOnly: plan.readOnly } };
      }
      const { handle, size } = await applyOpen(this.ctx, paths, plan);
      const entry = this.register(session, paths, {
        fresh: false,
        ...(handle && { handle }),
        size,
        meta: plan.meta,
        segmentBytes: plan.segmentBytes,
        lock: lock!,
      });
      entryRef = entry;
      await writePlannedMeta(this.ctx, paths, plan, (e) => this.emitter.emit("error", e, session));
      const repaired = actions.some((a) => !a.startsWith("took over"));
      return { session, report: { repaired, actions } };
    } catch (error) {
      await lock?.release();
      throw error;
    }
  }

  // ---------------------------------------------------------------- views

  describe(session: Session): SessionListItem {
    const entry = this.entries.get(session);
    const title = session.title;
    const stats = session.stats;
    const item: SessionListItem = {
      sessionId: session.id,
      agentId: session.agentId,
      title: title.title,
      titleSource: title.source,
      model: entry?.model,
      createdAt: session.createdAt,
      updatedAt: stats.updatedAt,
      messageCount: stats.messageCount,
      historyBytes: (entry?.segmentBytes ?? 0) + (entry?.writer?.size ?? entry?.activeBytes ?? 0),
      timeZone: entry?.timeZone ?? localTimeZone(),
      archived: entry?.paths.area === "archived",
      hot: true,
    };
    if (entry?.forkedFrom) item.forkedFrom = entry.forkedFrom;
    if (session.readOnly !== undefined) item.readOnly = session.readOnly;
    if (session.running) item.running = true;
    return item;
  }

  list(filter: ListFilter = {}): Promise<SessionListItem[]> {
    return listStored(this.ctx, filter);
  }

  async messages(ref: LocalSessionRef, options: { beforeSequence?: number } = {}, hot?: Session): Promise<HistoryPage> {
    const before = options.beforeSequence;
    if (before === undefined && hot) {
      const events = [...hot.events()];
      const page: HistoryPage = {
        events,
        firstSeq: events[0]?.seq ?? hot.baseSeq + 1,
        lastSeq: hot.lastSeq,
        hasOlder: hot.baseSeq > 0,
      };
      if (hot.summary) page.summary = hot.summary.text;
      return page;
    }
    const paths = hot ? this.entries.get(hot)?.paths : await this.findDir(ref);
    if (!paths) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
    if (before === undefined) {
      const log = await loadLog(this.ctx, paths);
      const page: HistoryPage = {
        events: log.events,
        firstSeq: log.events[0]?.seq ?? log.baseSeq + 1,
        lastSeq: log.events.at(-1)?.seq ?? log.baseSeq,
        hasOlder: log.baseSeq > 0,
      };
      if (log.footer) page.summary = log.footer.text;
      return page;
    }
    // The one complete segment just before `before`: one segment parsed per page.
    const segments = await listSegments(this.ctx, paths);
    let target;
    for (const s of segments) if (s.first < before) target = s;
    if (!target) return { events: [], firstSeq: before, lastSeq: before - 1, hasOlder: false };
    const segment = await readSegment(this.ctx, paths, target);
    return {
      events: segment.events,
      firstSeq: target.first,
      lastSeq: target.last,
      summary: segment.footer.text,
      hasOlder: target.first > 1,
    };
  }

  residentBytes(session: Session): number {
    const entry = this.entries.get(session);
    const summary = Buffer.byteLength(session.summary?.text ?? "", "utf8");
    // Derived messages share the events' frozen content; each costs a small wrapper.
    return summary + (entry?.activeBytes ?? 0) + session.deriveMessages().length * 96;
  }

  // ---------------------------------------------------------------- operations

  /**
   * A damaged session (hot and read-only, or cold) is refused unless `validPrefix` asks
   * for its valid prefix; then the fork says so in its `forkedFrom.validPrefix`.
   */
  async fork(ref: LocalSessionRef, options: ForkOptions = {}, hot?: Session): Promise<SessionListItem> {
    if (hot) await this.flush(hot);
    const entry = hot ? this.entries.get(hot) : undefined;
    const source = entry ? entry.paths : await this.findDir(ref);
    if (!source) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
    await assertNoLinks(this.ctx, source);
    if (entry?.damage && (!options.validPrefix || entry.damage.inSegments)) {
      throw new SessionRefusedError(
        `cannot fork damaged session ${JSON.stringify(ref.sessionId)}: ${entry.damage.reason}${entry.damage.inSegments ? "" : ` (fork its valid prefix, through seq ${hot!.lastSeq}, with validPrefix)`}`,
      );
    }
    const newId = options.newId ?? `session-${randomUUID()}`;
    if (this.existsSync({ agentId: source.agentId, sessionId: newId }))
      throw new Error(`session ${JSON.stringify(newId)} already exists`);
    const meta = await forkSession(
      this.ctx,
      source,
      newId,
      options.atSeq,
      hot,
      options.validPrefix === true && (!hot || entry?.damage !== undefined),
    );
    const item = itemFromMeta(meta, false);
    this.emitChange("created", item.agentId, item.sessionId, item);
    return item;
  }

  private async move(ref: LocalSessionRef, from: Area, to: Area): Promise<void> {
    const agentId = refAgent(ref);
    const meta = await moveSessionDir(this.ctx, agentId, ref.sessionId, from, to);
    this.emitChange("updated", agentId, ref.sessionId, meta ? itemFromMeta(meta, to === "archived") : undefined);
  }

  archive(ref: LocalSessionRef): Promise<void> {
    return this.move(ref, "sessions", "archived");
  }
  unarchive(ref: LocalSessionRef): Promise<void> {
    return this.move(ref, "archived", "sessions");
  }

  async delete(ref: LocalSessionRef): Promise<void> {
    const paths = await this.findDir(ref);
    if (!paths) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
    await assertNoLinks(this.ctx, paths);
    await deleteSessionDir(this.ctx, paths);
    this.emitChange("removed", paths.agentId, paths.sessionId);
  }

  /**
   * Deletes a folder a list reported damaged. Listed again first: a folder that has
   * become a session since (its log published, its meta rebuilt) is never deleted here.
   */
  async deleteDamaged(folder: DamagedFolder): Promise<void> {
    const area: Area = folder.archived ? "archived" : "sessions";
    const paths = folderPaths(this.ctx.root, folder.agentId, area, folder.folder);
    let still = false;
    await listStored(this.ctx, {
      agentId: folder.agentId,
      archived: folder.archived,
      verifyLogs: true,
      onDamaged: (d) => (still ||= d.folder === folder.folder),
    });
    if (!still) throw new SessionRefusedError(`${paths.dir} is no longer a damaged folder (nothing was deleted)`);
    await deleteSessionDir(this.ctx, paths);
  }

  // ---------------------------------------------------------------- lifecycle

  /** Flushes, writes meta.json, closes files and releases the lock of one session. */
  release(session: Session): Promise<void> {
    let pending = this.releasing.get(session);
    if (!pending) {
      pending = this.releaseNow(session).finally(() => this.releasing.delete(session));
      this.releasing.set(session, pending);
    }
    return pending;
  }

  private async releaseNow(session: Session): Promise<void> {
    const entry = this.entries.get(session);
    if (!entry) return;
    try {
      // Never write after another process took the lock over.
      await entry.lock?.beat();
      if (entry.writer && session.readOnly === undefined) {
        await entry.writer.flush();
        if (entry.meta.dirty) await entry.writer.exclusive(() => entry.meta.write());
      }
    } finally {
      this.entries.delete(session);
      entry.meta.stop();
      entry.follower?.stop();
      entry.detach.forEach((off) => off());
      await entry.writer?.close();
      await entry.lock?.release();
    }
  }

  async close(): Promise<void> {
    const results = await Promise.allSettled([...this.entries.keys()].map((s) => this.release(s)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }

  /** Test and benchmark access to a hot session's writer counters. */
  writerStats(session: Session): { batches: number; bytes: number; failures: number; queued: number } | undefined {
    const writer = this.entries.get(session)?.writer;
    return writer ? { ...writer.counters, queued: writer.queued } : undefined;
  }

  /** Polls a read-only follower now (tests; the timer does it otherwise). */
  async follow(session: Session): Promise<void> {
    await this.entries.get(session)?.follower?.poll();
  }

  private emitChange(kind: SessionChange["kind"], agentId: string, sessionId: string, item?: SessionListItem): void {
    const change: SessionChange = { kind, agentId, sessionId };
    if (item) change.item = item;
    this.emitter.emit("change", change);
  }
}
