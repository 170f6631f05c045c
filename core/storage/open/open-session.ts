// Over 350 lines: the open plan and its application are one recovery procedure (DESIGN §4), read top to bottom.
import { join } from "node:path";
import type { SessionEvent } from "../../protocol";
import { Session, type SessionInit } from "../../session";
import { namedError, publishNew, readIfExists, writeAtomic, writeFully } from "../fs/atomic";
import type { StorageContext } from "../context";
import { parseDraft } from "./draft";
import { SessionNotFoundError } from "../errors";
import { isErrno, type FileHandleSeam } from "../fs/fs-seam";
import type { SessionPaths } from "../layout";
import { footerSummary, loadLog, type LoadedLog } from "./load-log";
import { metaFromLog } from "../log-summary";
import { encodeMeta, localTimeZone, parseMeta, type SessionMeta } from "../meta";
import { encodeRecord } from "../records";
import { closeOpenTransactions, closeToolCalls, draftCommitted, recoverDraft } from "./recover";

/** An auxiliary file that is not a readable file of its kind: moved aside, then rebuilt. */
interface Aside {
  path: string;
  aside: string;
  action: string;
}

/**
 * Everything an open will do, decided before anything is written: a failed plan leaves
 * the folder byte-identical and nothing registered or queued.
 */
export interface OpenPlan {
  /** Seeded from the log and, when writable, already recovered in memory (not yet durable). */
  session: Session;
  readOnly?: string;
  /** The log itself is damaged (not merely locked or archived). */
  damage?: string;
  segmentDamage?: boolean;
  actions: string[];
  log: LoadedLog;
  /** Byte end of the valid records in Active (before any repair). */
  validEnd: number;
  oldMeta?: SessionMeta;
  /** What meta.json says after the open; written only when `metaStale`. */
  meta: SessionMeta;
  metaStale?: string;
  segmentBytes: number;
  /** Writable opens only. */
  repair?: {
    /** Torn tail to cut: [validEnd, fileEnd); `backup` when it holds a complete record. */
    cut?: { from: number; to: number; afterSeq: number; reason: string; backup?: string };
    /** Active rewritten without the events the latest segment already holds. */
    dropOverlap?: { bytes: number; count: number };
    /** Records of the events recovery appended in memory. */
    append: Buffer;
    asides: Aside[];
    deleteDraft: boolean;
  };
}

/**
 * Refuses a folder that holds no event log before anything else is touched (its lock
 * included): a failed open changes no byte.
 */
export async function assertHasLog(ctx: StorageContext, paths: SessionPaths): Promise<void> {
  if ((await kindOf(ctx, paths.active)) !== undefined || (await kindOf(ctx, paths.segments)) !== undefined) return;
  throw new SessionNotFoundError(
    `session ${JSON.stringify(paths.sessionId)} has no stored events (${rel(paths, paths.active)} is gone)`,
  );
}

/** Lists the kind of a path without following links; undefined when it does not exist. */
async function kindOf(ctx: StorageContext, path: string): Promise<"file" | "other" | undefined> {
  try {
    return (await ctx.fs.lstat(path)).isFile() ? "file" : "other";
  } catch (error) {
    if (isErrno(error, "ENOENT", "ENOTDIR")) return undefined;
    throw namedError(error, path);
  }
}

const asideName = (ctx: StorageContext, path: string) => `${path}.corrupt-${ctx.clock()}`;
const rel = (paths: SessionPaths, path: string) => path.slice(paths.dir.length + 1);

/** Whether bytes cut as a torn tail hold a complete, parseable line (then it is backed up first). */
function holdsCompleteRecord(tail: Buffer): boolean {
  for (const line of tail.toString("utf8").split("\n").slice(0, -1)) {
    try {
      JSON.parse(line);
      return true;
    } catch {
      // not a record
    }
  }
  return false;
}

/**
 * Reads the log and its auxiliary files and plans the open (DESIGN §4 recovery): cut a
 * torn tail, finish an interrupted compaction, recover the draft, close orphaned tool
 * calls and the open turn, rebuild a bad meta.json. `reasons` already holds why the
 * open is read-only (archived, locked elsewhere); damage adds to it.
 */
export async function planOpen(
  ctx: StorageContext,
  paths: SessionPaths,
  reasons: string[],
  actions: string[],
): Promise<OpenPlan> {
  const log = await loadLog(ctx, paths);
  if (!log.activeExists && log.segments.length === 0)
    throw new SessionNotFoundError(
      `session ${JSON.stringify(paths.sessionId)} has no stored events (${rel(paths, paths.active)} is gone)`,
    );
  let damage = log.damage;
  const asides: Aside[] = [];

  // DESIGN §4, "auxiliary files never block an intact log": a meta.json that is a link,
  // a directory, a FIFO or unreadable is moved aside (never followed) and rebuilt from the log.
  let oldMeta: SessionMeta | undefined;
  const metaKind = await kindOf(ctx, paths.meta);
  if (metaKind === "other")
    asides.push({ path: paths.meta, aside: asideName(ctx, paths.meta), action: "moved aside meta.json (not a file)" });
  else if (metaKind === "file") {
    const data = await readIfExists(ctx.fs, paths.meta).catch((e: Error) => e);
    if (data instanceof Error)
      asides.push({
        path: paths.meta,
        aside: asideName(ctx, paths.meta),
        action: `moved aside an unreadable meta.json (${data.message})`,
      });
    else oldMeta = parseMeta(data);
  }

  const init: SessionInit = {
    id: paths.sessionId,
    agentId: paths.agentId,
    createdAt:
      oldMeta?.createdAt ?? log.footer?.createdAt ?? log.latest?.events[0]?.time ?? log.events[0]?.time ?? ctx.clock(),
  };
  if (log.footer) init.summary = footerSummary(log.footer);
  else if (log.baseSeq > 0)
    init.summary = { throughSeq: log.baseSeq, text: "[summary unavailable: the latest segment is damaged]" };

  // Seed through the same validation as hot appends; an invalid record counts like an unparsable one.
  let events = log.events;
  let validEnd = log.parsed.validEnd;
  let tornReason = log.parsed.tornTail;
  let session: Session;
  try {
    session = Session.seed(init, events);
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
    if (k < events.length - 1) damage = damage ? `${damage}; ${reason}` : reason;
    else tornReason = reason;
    validEnd =
      log.overlap.bytes + log.parsed.sizes.slice(log.overlap.count, log.overlap.count + k).reduce((a, b) => a + b, 0);
    events = events.slice(0, k);
    session = partial;
  }
  if (damage) reasons.unshift(`damaged storage, nothing was changed: ${damage}`);

  let segmentBytes = oldMeta?.segmentBytes;
  const sameLog =
    oldMeta !== undefined &&
    oldMeta.lastSeq === session.lastSeq &&
    oldMeta.sessionId === paths.sessionId &&
    segmentBytes !== undefined;
  if (segmentBytes === undefined || !sameLog) {
    segmentBytes = 0;
    for (const s of log.segments) segmentBytes += (await ctx.fs.stat(join(paths.segments, s.file))).size;
  }
  const metaFor = (active: readonly SessionEvent[], activeBytes: number, createdAt?: number) =>
    metaFromLog(
      { ...log, events: [...active], parsed: { ...log.parsed, validEnd: activeBytes } },
      { sessionId: paths.sessionId, agentId: paths.agentId },
      {
        timeZone: oldMeta?.timeZone ?? localTimeZone(),
        segmentBytes: segmentBytes!,
        fallbackTime: ctx.clock(),
        ...(createdAt !== undefined && { createdAt }),
        ...(oldMeta?.forkedFrom && { forkedFrom: oldMeta.forkedFrom }),
      },
    );
  const fromLog = metaFor(events, validEnd - log.overlap.bytes, init.createdAt);
  const plan: OpenPlan = { session, actions, log, validEnd: log.parsed.validEnd, meta: fromLog, segmentBytes };
  if (oldMeta) plan.oldMeta = oldMeta;
  if (damage) plan.damage = damage;
  if (log.segmentDamage) plan.segmentDamage = true;
  if (reasons.length > 0) {
    plan.readOnly = reasons.join("; ");
    // A read-only open writes nothing; the seeded session is rebuilt read-only.
    plan.session = Session.seed({ ...init, readOnly: plan.readOnly }, events);
    return plan;
  }

  // Writable: plan the physical repairs, then recover in memory.
  const repair: NonNullable<OpenPlan["repair"]> = { append: Buffer.alloc(0), asides, deleteDraft: false };
  plan.repair = repair;
  const fileEnd = log.active.length;
  if (validEnd < fileEnd) {
    const cut: NonNullable<typeof repair.cut> = {
      from: validEnd,
      to: fileEnd,
      afterSeq: session.lastSeq,
      reason: tornReason ?? "invalid record",
    };
    if (holdsCompleteRecord(log.active.subarray(validEnd))) cut.backup = `${paths.active}.cut-${ctx.clock()}`;
    repair.cut = cut;
  }
  if (log.overlap.count > 0) repair.dropOverlap = { bytes: log.overlap.bytes, count: log.overlap.count };
  const before = session.lastSeq;

  // Draft, then orphaned tool calls, then the open turn: the order a provider expects.
  closeToolCalls(session, actions);
  // The draft, like meta.json: a link, directory or FIFO is moved aside, never read through.
  const draftKind = await kindOf(ctx, paths.draft);
  if (draftKind === "other") {
    asides.push({
      path: paths.draft,
      aside: asideName(ctx, paths.draft),
      action: "moved aside the draft (not a file)",
    });
  } else if (draftKind === "file") {
    const data = await readIfExists(ctx.fs, paths.draft).catch((e: Error) => e);
    const draft = data instanceof Error ? `unreadable (${data.message})` : data ? parseDraft(data) : undefined;
    if (typeof draft === "string") {
      const aside = asideName(ctx, paths.draft);
      asides.push({ path: paths.draft, aside, action: `kept an unreadable draft as ${rel(paths, aside)} (${draft})` });
    } else if (draft && draftCommitted(draft.draftId, session.events(), log.latest?.events ?? [])) {
      repair.deleteDraft = true;
      actions.push(`deleted leftover draft ${draft.draftId}: its final message is already in the log`);
    } else if (draft && draft.blocks.length === 0) {
      repair.deleteDraft = true;
      actions.push(`deleted empty draft ${draft.draftId}`);
    } else if (draft) {
      try {
        const event = recoverDraft(session, draft);
        repair.deleteDraft = true;
        actions.push(
          `recovered draft ${draft.draftId} as interrupted assistant message seq ${event.seq} (${draft.blocks.map((b) => b.type).join(", ")})`,
        );
      } catch (error) {
        const aside = asideName(ctx, paths.draft);
        asides.push({
          path: paths.draft,
          aside,
          action: `kept an invalid draft as ${rel(paths, aside)} (${(error as Error).message})`,
        });
      }
    }
  }
  closeOpenTransactions(session, log.latest?.events ?? [], actions);
  if (session.lastSeq > before) repair.append = Buffer.concat(session.events(before + 1).map((e) => encodeRecord(e)));

  // The events recovery appended count like any other.
  if (session.lastSeq > before)
    plan.meta = metaFor(session.events(), validEnd - log.overlap.bytes + repair.append.length, fromLog.createdAt);
  const stale = staleReason(oldMeta, fromLog, metaKind);
  if (stale) plan.metaStale = stale;
  else if (session.lastSeq > before) plan.metaStale = "recovered events";
  return plan;
}

/** Why meta.json must be rewritten: missing, corrupt, behind the log, or disagreeing with it. */
function staleReason(
  old: SessionMeta | undefined,
  fromLog: SessionMeta,
  kind: "file" | "other" | undefined,
): string | undefined {
  if (!old) return kind === "other" ? "rebuilt meta.json" : "rebuilt missing or corrupt meta.json";
  if (old.lastSeq !== fromLog.lastSeq || old.sessionId !== fromLog.sessionId)
    return `rebuilt stale meta.json (seq ${old.lastSeq} vs log ${fromLog.lastSeq})`;
  for (const key of ["agentId", "messageCount", "title", "titleSource"] as const) {
    if (old[key] !== fromLog[key]) return `rebuilt meta.json that disagreed with the log (${key})`;
  }
  return undefined;
}

/**
 * Carries out a writable plan under the writer lock: backup and cut a torn tail, drop
 * an interrupted compaction's overlap, append the recovered events, move broken
 * auxiliary files aside, drop the draft. Returns Active's handle and size. meta.json is
 * the caller's (best-effort).
 */
export async function applyOpen(
  ctx: StorageContext,
  paths: SessionPaths,
  plan: OpenPlan,
): Promise<{ handle?: FileHandleSeam; size: number }> {
  const { fs } = ctx;
  const repair = plan.repair!;
  const { log, actions } = plan;
  for (const a of repair.asides) {
    await fs.rename(a.path, a.aside);
    actions.push(a.action);
  }
  let size = log.active.length;
  if (repair.cut) {
    const { from, to, afterSeq, reason, backup } = repair.cut;
    if (backup) await writeAtomic(fs, backup, Buffer.from(log.active.subarray(from, to)), true);
    const h = await fs.open(paths.active, "r+");
    try {
      await h.truncate(from);
      await h.sync();
    } finally {
      await h.close();
    }
    size = from;
    actions.push(
      `truncated torn tail: ${to - from} bytes after seq ${afterSeq} (${reason})${backup ? `; the cut bytes are kept in ${rel(paths, backup)}` : ""}`,
    );
  }
  if (repair.dropOverlap) {
    const rest = log.active.subarray(repair.dropOverlap.bytes, size);
    await writeAtomic(fs, paths.active, Buffer.from(rest), true);
    size = rest.length;
    actions.push(
      `finished an interrupted compaction: dropped ${repair.dropOverlap.count} Active event(s) already in segment ${log.segments.at(-1)?.file}`,
    );
  }
  let handle: FileHandleSeam | undefined;
  if (repair.append.length > 0 && !log.activeExists && !repair.dropOverlap) {
    await publishNew(fs, paths.active, repair.append);
    size = repair.append.length;
    handle = await fs.open(paths.active, "r+");
  } else if (log.activeExists || repair.dropOverlap) {
    handle = await fs.open(paths.active, "r+");
    if (repair.append.length > 0) {
      try {
        await writeFully(handle, repair.append, size);
        await handle.sync();
      } catch (error) {
        await handle.truncate(size).catch(() => {});
        await handle.close().catch(() => {});
        throw error;
      }
      size += repair.append.length;
    }
  }
  if (repair.deleteDraft) await fs.unlink(paths.draft).catch(() => {});
  return handle ? { handle, size } : { size };
}

/** Writes the planned meta.json, best-effort: a list accelerator never fails an open. */
export async function writePlannedMeta(
  ctx: StorageContext,
  paths: SessionPaths,
  plan: OpenPlan,
  onError: (error: Error) => void,
): Promise<void> {
  if (!plan.metaStale) return;
  if (plan.metaStale !== "recovered events") plan.actions.push(plan.metaStale);
  await writeAtomic(ctx.fs, paths.meta, encodeMeta(plan.meta)).catch((e) => onError(namedError(e, paths.meta)));
}
