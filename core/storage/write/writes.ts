import { ReadOnlySessionError, type Draft, type Session } from "../../session";
import { writeAtomic } from "../fs/atomic";
import { isErrno } from "../fs/fs-seam";
import type { Entry, HotSessions } from "../hot";
import type { ActiveLogWriter } from "./active-writer";
import { closePrefixToSegment } from "./close-prefix";
import { materialise } from "./register";

type Writable = Entry & { writer: ActiveLogWriter };

export async function flush(hot: HotSessions, session: Session): Promise<void> {
  const entry = hot.entries.get(session);
  if (!entry?.writer) return;
  await entry.writer.flush();
}

function writable(hot: HotSessions, session: Session): Writable {
  const entry = hot.entries.get(session);
  if (!entry) throw new Error(`session ${session.id} is not open in this store`);
  if (session.readOnly !== undefined || !entry.writer)
    throw new ReadOnlySessionError(`session ${session.id} is read-only: ${session.readOnly}`);
  return entry as Writable;
}

/** Makes sure the session directory, lock and Active exist (a draft may precede the first flush). */
async function ensureMaterialised(hot: HotSessions, entry: Writable): Promise<void> {
  await entry.writer.flush();
  await entry.writer.exclusive(async (handle) => {
    if (!handle) entry.writer.replaceHandle(await materialise(hot, entry, Buffer.alloc(0)), 0);
  });
}

export async function writeDraft(hot: HotSessions, session: Session, draft: Draft): Promise<void> {
  const entry = writable(hot, session);
  if (!entry.writer.materialised) await ensureMaterialised(hot, entry);
  const stored: Record<string, unknown> = {
    draftId: draft.draftId,
    blocks: draft.blocks,
    time: hot.ctx.clock(),
    afterSeq: session.lastSeq,
  };
  if (draft.provider !== undefined) stored.provider = draft.provider;
  if (draft.model !== undefined) stored.model = draft.model;
  const data = Buffer.from(JSON.stringify(stored), "utf8");
  await entry.writer.exclusive(() => writeAtomic(hot.ctx.fs, entry.paths.draft, data));
}

/** Called after the final assistant/message was appended: makes it durable, then drops the draft. */
export async function discardDraft(hot: HotSessions, session: Session): Promise<void> {
  const entry = writable(hot, session);
  await entry.writer.flush();
  await entry.writer.exclusive(() =>
    hot.ctx.fs.unlink(entry.paths.draft).catch((e) => (isErrno(e, "ENOENT") ? undefined : Promise.reject(e))),
  );
}

/** Compaction's durable half (see `closePrefixToSegment`); meta.json follows, best-effort. */
export async function closePrefix(
  hot: HotSessions,
  session: Session,
  throughSeq: number,
  summaryText: string,
): Promise<void> {
  const entry = writable(hot, session);
  await entry.writer.flush();
  await entry.writer.exclusive(async (handle) => {
    entry.segmentBytes += await closePrefixToSegment(
      hot.ctx,
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
  hot.emitChange("updated", session.agentId, session.id, hot.describe(session));
}

/** Flushes, writes meta.json, closes files and releases the lock of one session. */
export async function releaseEntry(hot: HotSessions, session: Session): Promise<void> {
  const entry = hot.entries.get(session);
  if (!entry) return;
  try {
    // Never write after another process took the lock over.
    await entry.lock?.beat();
    if (entry.writer && session.readOnly === undefined) {
      await entry.writer.flush();
      if (entry.meta.dirty) await entry.writer.exclusive(() => entry.meta.write());
    }
  } finally {
    hot.entries.delete(session);
    entry.meta.stop();
    entry.follower?.stop();
    entry.detach.forEach((off) => off());
    await entry.writer?.close();
    await entry.lock?.release();
  }
}
