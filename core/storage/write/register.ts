import { dirname } from "node:path";
import { ReadOnlySessionError, type Session } from "../../session";
import { fsyncDir, publishNew, readIfExists, writeAtomic } from "../fs/atomic";
import { isErrno, type FileHandleSeam } from "../fs/fs-seam";
import { describeOwner, WriterLock } from "../fs/lock";
import { assertNoLinks } from "../fs/no-links";
import type { Entry, HotSessions } from "../hot";
import { isHashedName } from "../id-codec";
import type { SessionPaths } from "../layout";
import { eventModel } from "../log-summary";
import { localTimeZone, type SessionMeta } from "../meta";
import { ActiveLogWriter } from "./active-writer";
import { MetaWriter } from "./meta-writer";

export interface RegisterInit {
  fresh: boolean;
  handle?: FileHandleSeam;
  size?: number;
  meta?: SessionMeta;
  segmentBytes?: number;
  lock?: WriterLock;
}

/** Makes a session hot: its entry, and (unless read-only) its write-behind writer fed by its events. */
export function register(hot: HotSessions, session: Session, paths: SessionPaths, init: RegisterInit): Entry {
  const meta = new MetaWriter(
    hot.ctx,
    paths,
    () => metaOf(entry),
    (fn) => (entry.writer ? entry.writer.exclusive(fn) : fn()),
    (error) => hot.emitError(error, session),
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
        materialise: (batch) => materialise(hot, entry, batch),
        onDurable: () => afterBatch(hot, entry),
        onError: (error) => hot.emitError(error, session),
      },
      hot.ctx.writer,
      session.lastSeq,
      existing,
    );
    entry.detach.push(
      session.on("event", (event) => {
        entry.activeBytes += entry.writer!.enqueue(event);
        entry.model = eventModel(event) ?? entry.model;
      }),
      session.on("read-only", () => void entry.writer?.close()),
      session.on("running", () => hot.emitChange("updated", session.agentId, session.id, hot.describe(session))),
    );
  }
  hot.entries.set(session, entry);
  return entry;
}

/** First publication: dirs, writer lock, then Active via temp → fsync → link → fsync dir. */
export async function materialise(hot: HotSessions, entry: Entry, batch: Buffer): Promise<FileHandleSeam> {
  const { ctx } = hot;
  const { fs } = ctx;
  const { paths, session } = entry;
  // mkdir follows links: a linked `.downcity/` part would send the session elsewhere.
  await assertNoLinks(ctx, paths);
  await fs.mkdir(paths.messages);
  if (!entry.lock) {
    const result = await WriterLock.acquire(fs, paths.lock, ctx.lock, (reason) => lockLost(hot, entry, reason));
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

export function lockLost(hot: HotSessions, entry: Entry, reason: string): void {
  entry.session.setReadOnly(reason);
  hot.emitError(new ReadOnlySessionError(`session ${entry.session.id}: ${reason}`), entry.session);
}

function afterBatch(hot: HotSessions, entry: Entry): void {
  entry.meta.touched();
  hot.emitChange("updated", entry.session.agentId, entry.session.id, hot.describe(entry.session));
}

function metaOf(entry: Entry): SessionMeta {
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
