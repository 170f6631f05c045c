import { join } from "node:path";
import { EMPTY_TITLE, foldTitle, SessionEventError, type Session, type PrefixSummary } from "../../session";
import type { ActiveLogWriter } from "./active-writer";
import { fsyncDir, publishNew, writeAtomic } from "../fs/atomic";
import type { StorageContext } from "../context";
import type { FileHandleSeam } from "../fs/fs-seam";
import type { SessionPaths } from "../layout";
import { encodeRecord, type SummaryFooter } from "../records";
import { encodeSegment, segmentFileName } from "../segment-codec";

/**
 * Compaction's durable half, run on the writer's serial chain: the prefix through
 * `throughSeq` becomes an immutable segment (created atomically), then Active is
 * rewritten atomically with the rest, then memory drops the prefix. A crash between
 * the two steps leaves the events in both places, byte for byte; the next open trims
 * Active's overlap. Returns the new segment's size.
 */
export async function closePrefixToSegment(
  ctx: StorageContext,
  paths: SessionPaths,
  session: Session,
  writer: ActiveLogWriter,
  handle: FileHandleSeam | undefined,
  throughSeq: number,
  summaryText: string,
  model: string | undefined,
): Promise<number> {
  const { fs } = ctx;
  if (throughSeq <= session.baseSeq || throughSeq > writer.durableSeq) {
    throw new SessionEventError(
      `cannot close prefix through ${throughSeq}: open range is ${session.baseSeq + 1}..${writer.durableSeq}`,
    );
  }
  const closing = session.events().filter((e) => e.seq <= throughSeq);
  const after = session.events(throughSeq + 1);
  let title = session.summary?.title ?? EMPTY_TITLE;
  for (const e of closing) title = foldTitle(title, e);
  const afterMessages = after.filter((e) => e.type === "user/message" || e.type === "assistant/message").length;
  const summary: PrefixSummary = {
    throughSeq,
    text: summaryText,
    messageCount: session.stats.messageCount - afterMessages,
    title,
  };
  const footer: SummaryFooter = {
    kind: "summary",
    throughSeq,
    text: summaryText,
    messageCount: summary.messageCount!,
    createdAt: session.createdAt,
  };
  footer.title = {
    pinned: title.pinned,
    ...(title.title !== undefined && { title: title.title }),
    ...(title.source && { source: title.source }),
    ...(title.seq !== undefined && { seq: title.seq }),
  };
  if (model) footer.model = model;
  const segment = await encodeSegment(closing, footer);
  const created = !fs.existsSync(paths.segments);
  await fs.mkdir(paths.segments);
  if (created) await fsyncDir(fs, paths.messages);
  await publishNew(fs, join(paths.segments, segmentFileName(session.baseSeq + 1, throughSeq)), segment);
  const kept = Buffer.concat(after.filter((e) => e.seq <= writer.durableSeq).map((e) => encodeRecord(e)));
  await writeAtomic(fs, paths.active, kept, true);
  await handle?.close().catch(() => {});
  writer.replaceHandle(await fs.open(paths.active, "r+"), kept.length);
  session.closePrefix(summary);
  return segment.length;
}
