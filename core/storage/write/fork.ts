import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import type { SessionEvent } from "../../protocol";
import { normaliseTitle, Session, type PrefixSummary } from "../../session";
import { fsyncDir, writeAtomic, writeFully } from "../fs/atomic";
import type { StorageContext } from "../context";
import { isErrno } from "../fs/fs-seam";
import { isHashedName } from "../id-codec";
import { areaDir, sessionPaths, type SessionPaths } from "../layout";
import { footerSummary, loadLog } from "../open/load-log";
import { eventModel } from "../log-summary";
import { encodeMeta, localTimeZone, parseMeta, type SessionMeta } from "../meta";
import { encodeRecord } from "../records";
import { listSegments, readSegment } from "../segments-dir";
import { readIfExists } from "../fs/atomic";
import { SessionRefusedError } from "../errors";
import { CHECKPOINTS_DIR } from "../layout";

/**
 * Copies a session's history through `atSeq` into a new session id. Whole segments are
 * hard-linked (they are immutable; copied where links are not allowed); a segment
 * straddling `atSeq` is not split: its events up to `atSeq` start the fork's Active.
 * The fork is assembled in a hidden directory and published by one rename.
 */
export async function forkSession(
  ctx: StorageContext,
  source: SessionPaths,
  newId: string,
  atSeq: number | undefined,
  hot?: Session,
  validPrefix = false,
): Promise<SessionMeta> {
  const { fs } = ctx;
  const segments = await listSegments(ctx, source);
  let active: readonly SessionEvent[];
  let lastSeq: number;
  let prefixOnly = validPrefix && hot !== undefined;
  if (hot) {
    active = hot.events();
    lastSeq = hot.lastSeq;
  } else {
    const log = await loadLog(ctx, source);
    if (log.damage && (!validPrefix || log.segmentDamage)) {
      const hint = log.segmentDamage
        ? ""
        : ` (fork its valid prefix, through seq ${log.events.at(-1)?.seq ?? log.baseSeq}, with validPrefix)`;
      throw new SessionRefusedError(
        `cannot fork damaged session ${JSON.stringify(source.sessionId)}: ${log.damage}${hint}`,
      );
    }
    active = log.events;
    lastSeq = log.events.at(-1)?.seq ?? log.baseSeq;
    prefixOnly = log.damage !== undefined;
  }
  const at = atSeq ?? lastSeq;
  if (!Number.isSafeInteger(at) || at < 1 || at > lastSeq)
    throw new RangeError(`fork point ${at} is outside 1..${lastSeq}`);
  const linked = segments.filter((s) => s.last <= at);
  const straddle = segments.find((s) => s.first <= at && s.last > at);
  const events = (straddle ? (await readSegment(ctx, source, straddle)).events : active).filter((e) => e.seq <= at);
  const lastLinked = linked.at(-1);
  let summary: PrefixSummary | undefined;
  if (lastLinked) {
    summary =
      hot?.summary && hot.summary.throughSeq === lastLinked.last
        ? hot.summary
        : footerSummary((await readSegment(ctx, source, lastLinked)).footer);
  }
  const sourceMeta = parseMeta(await readIfExists(fs, source.meta).catch(() => undefined));
  const createdAt = ctx.clock();
  // Seeding validates the copied events and yields title and counts for meta.json.
  const seeded = Session.seed({ id: newId, agentId: source.agentId, createdAt, ...(summary && { summary }) }, events);
  // Told apart from its source, and titled even when forked before the source's title
  // event: a user title, so automatic renaming never overwrites it (the user may still).
  const named = seeded.append("session/title", {
    title: forkTitle(hot?.title.title ?? sourceMeta?.title ?? seeded.title.title ?? firstUserText(events)),
    messageSeqs: [],
    source: { kind: "user" },
  });

  const target = sessionPaths(ctx.root, source.agentId, newId, "sessions");
  const tmp = join(areaDir(ctx.root, source.agentId, "sessions"), `.fork-${randomUUID()}`);
  const tmpSegments = join(tmp, "messages", "segments");
  try {
    await fs.mkdir(tmpSegments);
    let bytes = 0;
    for (const s of linked) {
      const from = join(source.segments, s.file);
      const to = join(tmpSegments, s.file);
      try {
        await fs.link(from, to);
      } catch (error) {
        if (!isErrno(error, "EXDEV", "EPERM", "EMLINK", "ENOTSUP", "EOPNOTSUPP")) throw error;
        await fs.copyFile(from, to);
      }
      bytes += (await fs.stat(to)).size;
    }
    // Checkpoint blobs are immutable too (restore, issue 24): the fork shares them.
    await linkTree(ctx, join(source.dir, CHECKPOINTS_DIR), join(tmp, CHECKPOINTS_DIR));
    const activeData = Buffer.concat([...events, named].map((e) => encodeRecord(e)));
    const handle = await fs.open(join(tmp, "messages", "active.jsonl"), "wx");
    try {
      await writeFully(handle, activeData, 0);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (isHashedName(target.name)) await writeAtomic(fs, join(tmp, "session-id"), Buffer.from(newId, "utf8"));
    let model = sourceMeta?.model;
    for (const e of events) model = eventModel(e) ?? model;
    const title = seeded.title;
    const meta: SessionMeta = {
      version: 1,
      sessionId: newId,
      agentId: source.agentId,
      createdAt,
      updatedAt: createdAt,
      messageCount: seeded.stats.messageCount,
      historyBytes: bytes + activeData.length,
      segmentBytes: bytes,
      timeZone: sourceMeta?.timeZone ?? localTimeZone(),
      forkedFrom: {
        sessionId: source.sessionId,
        agentId: source.agentId,
        atSeq: at,
        ...(prefixOnly && { validPrefix: true as const }),
      },
      lastSeq: named.seq,
    };
    if (title.title !== undefined) meta.title = title.title;
    if (title.source !== undefined) meta.titleSource = title.source;
    if (model !== undefined) meta.model = model;
    await writeAtomic(fs, join(tmp, "meta.json"), encodeMeta(meta));
    for (const dir of [tmpSegments, dirname(tmpSegments), tmp]) await fsyncDir(fs, dir);
    await fs.rename(tmp, target.dir);
    await fsyncDir(fs, dirname(target.dir));
    return meta;
  } catch (error) {
    await fs.rm(tmp).catch(() => {});
    throw error;
  }
}

/** Hard-links (or copies) every regular file below `from` into `to`; links and other entries are not followed or taken. */
async function linkTree(ctx: StorageContext, from: string, to: string): Promise<void> {
  let entries;
  try {
    if ((await ctx.fs.lstat(from)).isSymbolicLink()) return;
    entries = await ctx.fs.readdir(from);
  } catch (error) {
    if (isErrno(error, "ENOENT", "ENOTDIR")) return;
    throw error;
  }
  await ctx.fs.mkdir(to);
  for (const e of entries) {
    const a = join(from, e.name);
    const b = join(to, e.name);
    if (e.isDirectory()) await linkTree(ctx, a, b);
    else if (e.isFile() && !e.name.startsWith("index-")) {
      try {
        await ctx.fs.link(a, b);
      } catch (error) {
        if (!isErrno(error, "EXDEV", "EPERM", "EMLINK", "ENOTSUP", "EOPNOTSUPP")) throw error;
        await ctx.fs.copyFile(a, b);
      }
    }
  }
}

/** "Fork of ‹title›", bounded like every title. */
export function forkTitle(sourceTitle: string | undefined): string {
  return normaliseTitle(`Fork of ${sourceTitle?.trim() || "untitled session"}`, 120);
}

/** The first user message's text: the title of a source that never got one. */
function firstUserText(events: readonly SessionEvent[]): string | undefined {
  const first = events.find((e) => e.type === "user/message");
  const content = (first?.data as { content?: { type: string; text?: string }[] } | undefined)?.content ?? [];
  const text = normaliseTitle(content.map((b) => (b.type === "text" ? (b.text ?? "") : "")).join(" "), 60);
  return text || undefined;
}
