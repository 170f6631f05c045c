import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  DEFAULT_AGENT_ID,
  EMPTY_TITLE,
  foldTitle,
  ReadOnlySessionError,
  Session,
  SessionEventError,
  type DraftInput,
  type ForkOptions,
  type HistoryPage,
  type ListFilter,
  type RepairReport,
  type SessionChange,
  type SessionInit,
  type SessionListItem,
  type SessionPersistence,
  type SessionRef,
  type SessionStore,
  type SessionSummary,
} from "../session";
import { Emitter, type Unsubscribe } from "../util/emitter";
import { ActiveLogWriter } from "./active-writer";
import { fsyncDir, publishNew, readIfExists, writeAtomic } from "./atomic";
import type { StorageContext } from "./context";
import { parseDraft } from "./draft";
import { ActiveFollower } from "./follower";
import { deleteSessionDir, moveSessionDir } from "./directory-ops";
import { SessionNotFoundError } from "./errors";
import { forkSession } from "./fork";
import { isErrno, nodeFs, type FileHandleSeam, type FsSeam } from "./fs-seam";
import { isHashedName } from "./id-codec";
import { sessionPaths, type Area, type SessionPaths } from "./layout";
import { itemFromMeta, listStored, rebuildMeta } from "./list";
import { footerSummary, loadLog } from "./load-log";
import { describeOwner, WriterLock } from "./lock";
import { eventModel, metaFromLog } from "./log-summary";
import { encodeMeta, localTimeZone, parseMeta, type SessionMeta } from "./meta";
import { encodeRecord, type SummaryFooter } from "./records";
import { closeOpenTransactions, closeToolCalls, draftCommitted, recoverDraft } from "./recover";
import { encodeSegment, segmentFileName } from "./segment-codec";
import { listSegments, readSegment } from "./segments-dir";

export interface JsonlPersistenceOptions {
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

export { SessionNotFoundError };

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
  metaDirty: boolean;
  lastMetaWrite: number;
  metaTimer?: NodeJS.Timeout;
  detach: Unsubscribe[];
}

type Events = { change: [SessionChange]; error: [Error, Session | undefined] };

const refAgent = (ref: SessionRef) => ref.agentId ?? DEFAULT_AGENT_ID;

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
    const clock = options.clock ?? Date.now;
    this.ctx = {
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
      store.on("disposed", (session) => void this.release(session).catch((e) => this.emitter.emit("error", e as Error, session))),
    ];
    return () => offs.forEach((off) => off());
  }

  existsSync(ref: SessionRef): boolean {
    const agentId = refAgent(ref);
    return (["sessions", "archived"] as const).some((area) => existsSync(sessionPaths(this.ctx.root, agentId, ref.sessionId, area).dir));
  }

  // ---------------------------------------------------------------- write path

  private register(session: Session, paths: SessionPaths, init: { fresh: boolean; handle?: FileHandleSeam; size?: number; meta?: SessionMeta; segmentBytes?: number; lock?: WriterLock }): Entry {
    const entry: Entry = {
      session,
      paths,
      model: init.meta?.model,
      timeZone: init.meta?.timeZone ?? localTimeZone(),
      segmentBytes: init.segmentBytes ?? 0,
      activeBytes: init.size ?? 0,
      metaDirty: false,
      lastMetaWrite: init.fresh ? 0 : this.ctx.clock(),
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
    await this.writeMeta(entry).catch((error) => this.emitter.emit("error", error as Error, session));
    return handle;
  }

  private lockLost(entry: Entry, reason: string): void {
    entry.session.setReadOnly(reason);
    this.emitter.emit("error", new ReadOnlySessionError(`session ${entry.session.id}: ${reason}`), entry.session);
  }

  private afterBatch(entry: Entry): void {
    entry.metaDirty = true;
    const wait = entry.lastMetaWrite + this.ctx.metaIntervalMs - this.ctx.clock();
    if (!entry.metaTimer) {
      entry.metaTimer = setTimeout(() => {
        entry.metaTimer = undefined;
        if (entry.metaDirty) void entry.writer?.exclusive(() => this.writeMeta(entry)).catch((e) => this.emitter.emit("error", e as Error, entry.session));
      }, Math.max(0, wait));
      entry.metaTimer.unref();
    }
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

  /** Counts of a meta snapshot refer to durable events only when written after a flush; good enough for an accelerator. */
  private async writeMeta(entry: Entry): Promise<void> {
    entry.metaDirty = false;
    entry.lastMetaWrite = this.ctx.clock();
    await writeAtomic(this.ctx.fs, entry.paths.meta, encodeMeta(this.metaOf(entry)));
  }

  async flush(session: Session): Promise<void> {
    const entry = this.entries.get(session);
    if (!entry?.writer) return;
    await entry.writer.flush();
  }

  private writable(session: Session): Entry & { writer: ActiveLogWriter } {
    const entry = this.entries.get(session);
    if (!entry) throw new Error(`session ${session.id} is not open in this store`);
    if (session.readOnly !== undefined || !entry.writer) throw new ReadOnlySessionError(`session ${session.id} is read-only: ${session.readOnly}`);
    return entry as Entry & { writer: ActiveLogWriter };
  }

  /** Makes sure the session directory, lock and Active exist (a draft may precede the first flush). */
  private async ensureMaterialised(entry: Entry & { writer: ActiveLogWriter }): Promise<void> {
    await entry.writer.flush();
    await entry.writer.exclusive(async (handle) => {
      if (!handle) entry.writer.replaceHandle(await this.materialise(entry, Buffer.alloc(0)), 0);
    });
  }

  async writeDraft(session: Session, draft: DraftInput): Promise<void> {
    const entry = this.writable(session);
    if (!entry.writer.materialised) await this.ensureMaterialised(entry);
    const stored: Record<string, unknown> = { draftId: draft.draftId, blocks: draft.blocks, time: this.ctx.clock(), afterSeq: session.lastSeq };
    if (draft.provider !== undefined) stored.provider = draft.provider;
    if (draft.model !== undefined) stored.model = draft.model;
    const data = Buffer.from(JSON.stringify(stored), "utf8");
    await entry.writer.exclusive(() => writeAtomic(this.ctx.fs, entry.paths.draft, data));
  }

  /** Called after the final assistant/message was appended: makes it durable, then drops the draft. */
  async discardDraft(session: Session): Promise<void> {
    const entry = this.writable(session);
    await entry.writer.flush();
    await entry.writer.exclusive(() => this.ctx.fs.unlink(entry.paths.draft).catch((e) => (isErrno(e, "ENOENT") ? undefined : Promise.reject(e))));
  }

  /**
   * Compaction's durable half: the prefix through `throughSeq` becomes an immutable
   * segment (created atomically), then Active is rewritten atomically with the rest,
   * then memory drops the prefix. A crash between the two steps leaves the events in
   * both places; the next open trims Active's overlap.
   */
  async closePrefix(session: Session, throughSeq: number, summaryText: string): Promise<void> {
    const entry = this.writable(session);
    const { fs } = this.ctx;
    await entry.writer.flush();
    await entry.writer.exclusive(async (handle) => {
      const writer = entry.writer;
      if (throughSeq <= session.baseSeq || throughSeq > writer.durableSeq) {
        throw new SessionEventError(`cannot close prefix through ${throughSeq}: open range is ${session.baseSeq + 1}..${writer.durableSeq}`);
      }
      const closing = session.events().filter((e) => e.seq <= throughSeq);
      const after = session.events(throughSeq + 1);
      let title = session.summary?.title ?? EMPTY_TITLE;
      for (const e of closing) title = foldTitle(title, e);
      const afterMessages = after.filter((e) => e.type === "user/message" || e.type === "assistant/message").length;
      const summary: SessionSummary = { throughSeq, text: summaryText, messageCount: session.stats.messageCount - afterMessages, title };
      const footer: SummaryFooter = { kind: "summary", throughSeq, text: summaryText, messageCount: summary.messageCount!, createdAt: session.createdAt };
      footer.title = { pinned: title.pinned, ...(title.title !== undefined && { title: title.title }), ...(title.source && { source: title.source }), ...(title.seq !== undefined && { seq: title.seq }) };
      if (entry.model) footer.model = entry.model;
      const segment = await encodeSegment(closing, footer);
      const created = !existsSync(entry.paths.segments);
      await fs.mkdir(entry.paths.segments);
      if (created) await fsyncDir(fs, entry.paths.messages);
      await publishNew(fs, join(entry.paths.segments, segmentFileName(session.baseSeq + 1, throughSeq)), segment);
      const kept = Buffer.concat(after.filter((e) => e.seq <= writer.durableSeq).map((e) => encodeRecord(e)));
      await writeAtomic(fs, entry.paths.active, kept, true);
      await handle?.close().catch(() => {});
      writer.replaceHandle(await fs.open(entry.paths.active, "r+"), kept.length);
      entry.segmentBytes += segment.length;
      entry.activeBytes = kept.length + writer.pendingBytes;
      session.closePrefix(summary);
      await this.writeMeta(entry);
    });
    this.emitChange("updated", session.agentId, session.id, this.describe(session));
  }

  // ---------------------------------------------------------------- open

  private async findDir(ref: SessionRef): Promise<SessionPaths | undefined> {
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
   * The one open path (cold open, after a crash or not): lock, load summary + Active,
   * cut a torn tail, finish an interrupted compaction, recover the draft, close open
   * tool calls and turns, rebuild a bad meta.json. Damage opens read-only, bytes kept.
   */
  async open(ref: SessionRef): Promise<{ session: Session; report: RepairReport }> {
    const { fs } = this.ctx;
    const agentId = refAgent(ref);
    const paths = await this.findDir(ref);
    if (!paths) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)} for agent ${JSON.stringify(agentId)}`);
    const actions: string[] = [];
    const reasons: string[] = [];
    let lock: WriterLock | undefined;
    let entryRef: Entry | undefined;
    if (paths.area === "archived") reasons.push("archived (unarchive it to continue)");
    else {
      const result = await WriterLock.acquire(fs, paths.lock, this.ctx.lock, (reason) => entryRef && this.lockLost(entryRef, reason));
      if ("lock" in result) {
        lock = result.lock;
        if (result.tookOver) actions.push(result.tookOver);
      } else reasons.push(`open for writing elsewhere (${describeOwner(result.heldBy)})`);
    }
    try {
      const log = await loadLog(this.ctx, paths);
      if (!log.activeExists && log.segments.length === 0) throw new SessionNotFoundError(`session ${JSON.stringify(ref.sessionId)} has no stored events`);
      const damaged = log.damage !== undefined;
      if (damaged) reasons.unshift(`damaged storage, nothing was changed: ${log.damage}`);
      const oldMeta = parseMeta(await readIfExists(fs, paths.meta).catch(() => undefined));
      const init: SessionInit = {
        id: ref.sessionId,
        agentId,
        createdAt: oldMeta?.createdAt ?? log.footer?.createdAt ?? log.latest?.events[0]?.time ?? log.events[0]?.time ?? this.ctx.clock(),
      };
      if (log.footer) init.summary = footerSummary(log.footer);
      else if (log.baseSeq > 0) init.summary = { throughSeq: log.baseSeq, text: "[summary unavailable: the latest segment is damaged]" };

      // Seed through the same validation as hot appends; an invalid record counts like an unparsable one.
      let events = log.events;
      let validEnd = log.parsed.validEnd;
      let tornReason = log.parsed.tornTail;
      let seeded: Session;
      try {
        seeded = Session.seed(init, events);
      } catch (error) {
        const partial = new Session(init);
        let k = 0;
        for (; k < events.length; k++) {
          try {
            partial.applyExternal(events[k]);
          } catch {
            break;
          }
        }
        const reason = `seq ${events[k]?.seq} is invalid: ${(error as Error).message}`;
        if (k < events.length - 1) reasons.unshift(`damaged storage, nothing was changed: ${reason}`);
        else tornReason = reason;
        validEnd = log.overlap.bytes + log.parsed.sizes.slice(log.overlap.count, log.overlap.count + k).reduce((a, b) => a + b, 0);
        events = events.slice(0, k);
        seeded = Session.seed(init, events);
      }
      const readOnly = reasons.length > 0 ? reasons.join("; ") : undefined;

      if (readOnly !== undefined) {
        await lock?.release();
        const session = Session.seed({ ...init, readOnly }, events);
        const entry = this.register(session, paths, { fresh: false, ...(oldMeta && { meta: oldMeta }), segmentBytes: oldMeta?.segmentBytes ?? 0, size: log.parsed.validEnd });
        if (!damaged && paths.area === "sessions") {
          const ino = await fs.stat(paths.active).then((s) => s.ino, () => undefined);
          entry.follower = new ActiveFollower(this.ctx, paths, session, log.parsed.validEnd, ino, (e) => this.emitter.emit("error", e, session));
          entry.follower.start();
        }
        return { session, report: { repaired: false, actions, readOnly } };
      }

      // Physical repairs, under the writer lock.
      const fileEnd = log.active.length;
      if (validEnd < fileEnd) {
        const h = await fs.open(paths.active, "r+");
        try {
          await h.truncate(validEnd);
          await h.sync();
        } finally {
          await h.close();
        }
        actions.push(`truncated torn tail: ${fileEnd - validEnd} bytes after seq ${seeded.lastSeq} (${tornReason})`);
      }
      let size = validEnd;
      if (log.overlap.count > 0) {
        const rest = log.active.subarray(log.overlap.bytes, validEnd);
        await writeAtomic(fs, paths.active, Buffer.from(rest), true);
        size = rest.length;
        actions.push(`finished an interrupted compaction: dropped ${log.overlap.count} Active event(s) already in segment ${log.segments.at(-1)?.file}`);
      }
      const handle = log.activeExists || log.overlap.count > 0 ? await fs.open(paths.active, "r+") : undefined;
      let segmentBytes = oldMeta?.segmentBytes;
      const metaFresh = oldMeta !== undefined && oldMeta.lastSeq === seeded.lastSeq && oldMeta.sessionId === ref.sessionId && segmentBytes !== undefined;
      if (segmentBytes === undefined || !metaFresh) {
        segmentBytes = 0;
        for (const s of log.segments) segmentBytes += (await fs.stat(join(paths.segments, s.file))).size;
      }
      const rebuilt = metaFromLog({ ...log, events }, { sessionId: ref.sessionId, agentId }, {
        timeZone: oldMeta?.timeZone ?? localTimeZone(),
        segmentBytes,
        fallbackTime: this.ctx.clock(),
        ...(oldMeta?.forkedFrom && { forkedFrom: oldMeta.forkedFrom }),
      });
      const entry = this.register(seeded, paths, { fresh: false, ...(handle && { handle }), size, meta: rebuilt, segmentBytes, lock: lock! });
      entryRef = entry;
      const session = seeded;
      const before = session.lastSeq;

      // Draft, then orphaned tool calls, then the open turn: the order a provider expects.
      let draftToDelete = false;
      closeToolCalls(session, actions);
      const draftBuf = await readIfExists(fs, paths.draft);
      if (draftBuf) {
        const draft = parseDraft(draftBuf);
        if (typeof draft === "string") {
          const aside = `${paths.draft}.corrupt-${this.ctx.clock()}`;
          await fs.rename(paths.draft, aside);
          actions.push(`kept an unreadable draft as ${aside.slice(paths.dir.length + 1)} (${draft})`);
        } else if (draftCommitted(draft.draftId, session.events(), log.latest?.events ?? [])) {
          draftToDelete = true;
          actions.push(`deleted leftover draft ${draft.draftId}: its final message is already in the log`);
        } else if (draft.blocks.length === 0) {
          draftToDelete = true;
          actions.push(`deleted empty draft ${draft.draftId}`);
        } else {
          const event = recoverDraft(session, draft);
          draftToDelete = true;
          actions.push(`recovered draft ${draft.draftId} as interrupted assistant message seq ${event.seq} (${draft.blocks.map((b) => b.type).join(", ")})`);
        }
      }
      closeOpenTransactions(session, log.latest?.events ?? [], actions);
      if (session.lastSeq > before) await entry.writer!.flush();
      if (draftToDelete) await fs.unlink(paths.draft).catch(() => {});
      if (!metaFresh || session.lastSeq > before) {
        if (!metaFresh) actions.push(oldMeta ? `rebuilt stale meta.json (seq ${oldMeta.lastSeq} vs log ${seeded.lastSeq})` : "rebuilt missing or corrupt meta.json");
        await entry.writer!.exclusive(() => this.writeMeta(entry));
      }
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

  async messages(ref: SessionRef, options: { beforeSequence?: number } = {}, hot?: Session): Promise<HistoryPage> {
    const before = options.beforeSequence;
    if (before === undefined && hot) {
      const events = [...hot.events()];
      const page: HistoryPage = { events, firstSeq: events[0]?.seq ?? hot.baseSeq + 1, lastSeq: hot.lastSeq, hasOlder: hot.baseSeq > 0 };
      if (hot.summary) page.summary = hot.summary.text;
      return page;
    }
    const paths = hot ? this.entries.get(hot)?.paths : await this.findDir(ref);
    if (!paths) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
    if (before === undefined) {
      const log = await loadLog(this.ctx, paths);
      const page: HistoryPage = { events: log.events, firstSeq: log.events[0]?.seq ?? log.baseSeq + 1, lastSeq: log.events.at(-1)?.seq ?? log.baseSeq, hasOlder: log.baseSeq > 0 };
      if (log.footer) page.summary = log.footer.text;
      return page;
    }
    // The one complete segment just before `before`: one segment parsed per page.
    const segments = await listSegments(this.ctx, paths);
    let target;
    for (const s of segments) if (s.first < before) target = s;
    if (!target) return { events: [], firstSeq: before, lastSeq: before - 1, hasOlder: false };
    const segment = await readSegment(this.ctx, paths, target);
    return { events: segment.events, firstSeq: target.first, lastSeq: target.last, summary: segment.footer.text, hasOlder: target.first > 1 };
  }

  residentBytes(session: Session): number {
    const entry = this.entries.get(session);
    const summary = Buffer.byteLength(session.summary?.text ?? "", "utf8");
    // Derived messages share the events' frozen content; each costs a small wrapper.
    return summary + (entry?.activeBytes ?? 0) + session.deriveMessages().length * 96;
  }

  // ---------------------------------------------------------------- operations

  async fork(ref: SessionRef, options: ForkOptions = {}, hot?: Session): Promise<SessionListItem> {
    if (hot) await this.flush(hot);
    const source = hot ? this.entries.get(hot)?.paths : await this.findDir(ref);
    if (!source) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
    const newId = options.newId ?? `session-${randomUUID()}`;
    if (this.existsSync({ agentId: source.agentId, sessionId: newId })) throw new Error(`session ${JSON.stringify(newId)} already exists`);
    const meta = await forkSession(this.ctx, source, newId, options.atSeq, hot);
    const item = itemFromMeta(meta, false);
    this.emitChange("created", item.agentId, item.sessionId, item);
    return item;
  }

  private async move(ref: SessionRef, from: Area, to: Area): Promise<void> {
    const agentId = refAgent(ref);
    const meta = await moveSessionDir(this.ctx, agentId, ref.sessionId, from, to);
    this.emitChange("updated", agentId, ref.sessionId, meta ? itemFromMeta(meta, to === "archived") : undefined);
  }

  archive(ref: SessionRef): Promise<void> {
    return this.move(ref, "sessions", "archived");
  }
  unarchive(ref: SessionRef): Promise<void> {
    return this.move(ref, "archived", "sessions");
  }

  async delete(ref: SessionRef): Promise<void> {
    const paths = await this.findDir(ref);
    if (!paths) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
    await deleteSessionDir(this.ctx, paths);
    this.emitChange("removed", paths.agentId, paths.sessionId);
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
        if (entry.metaDirty) await entry.writer.exclusive(() => this.writeMeta(entry));
      }
    } finally {
      this.entries.delete(session);
      if (entry.metaTimer) clearTimeout(entry.metaTimer);
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

