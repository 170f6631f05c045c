import type { SessionEvent } from "../../protocol";
import type { PrefixSummary } from "../../session";
import { readIfExists } from "../fs/atomic";
import type { StorageContext } from "../context";
import type { SessionPaths } from "../layout";
import { encodeRecord, parseEventLog, type ParsedLog, type SummaryFooter } from "../records";
import { findSegmentGap, type DecodedSegment, type SegmentName } from "../segment-codec";
import { listSegments, readSegment } from "../segments-dir";

export interface LoadedLog {
  segments: SegmentName[];
  /** The latest segment, decoded (its footer is the summary); undefined when none or unreadable. */
  latest?: DecodedSegment;
  footer?: SummaryFooter;
  /** Last seq closed into segments (0 when none). */
  baseSeq: number;
  activeExists: boolean;
  active: Buffer;
  parsed: ParsedLog;
  /** Leading Active events already closed into a segment (a compaction interrupted between its two steps). */
  overlap: { count: number; bytes: number };
  /** The Active events after the last segment. */
  events: SessionEvent[];
  /** Damage before the last valid record: the session must open read-only. */
  damage?: string;
  /** Whether the damage is in segments (then not even the valid prefix of Active can be forked). */
  segmentDamage?: boolean;
}

export function footerSummary(footer: SummaryFooter): PrefixSummary {
  const summary: PrefixSummary = {
    throughSeq: footer.throughSeq,
    text: footer.text,
    messageCount: footer.messageCount,
  };
  if (footer.title)
    summary.title = {
      title: footer.title.title,
      source: footer.title.source,
      seq: footer.title.seq,
      pinned: footer.title.pinned,
    };
  return summary;
}

/**
 * Reads what an open needs and nothing more: segment names, the latest segment (for
 * its summary) and Active. Old segments are never read. Classifies problems into a
 * torn tail (repairable) and damage (read-only).
 */
export async function loadLog(ctx: StorageContext, paths: SessionPaths): Promise<LoadedLog> {
  const segments = await listSegments(ctx, paths);
  const damages: string[] = [];
  const gap = findSegmentGap(segments);
  if (gap) damages.push(gap);
  const last = segments[segments.length - 1];
  const baseSeq = last?.last ?? 0;
  let latest: DecodedSegment | undefined;
  if (last) {
    try {
      latest = await readSegment(ctx, paths, last);
    } catch (error) {
      damages.push((error as Error).message);
    }
  }
  const activeBuf = await readIfExists(ctx.fs, paths.active);
  const active = activeBuf ?? Buffer.alloc(0);
  const parsed = parseEventLog(active);
  if (parsed.damage) damages.push(`active.jsonl: ${parsed.damage}`);

  let count = 0;
  let bytes = 0;
  while (count < parsed.events.length && parsed.events[count]!.seq <= baseSeq) bytes += parsed.sizes[count++]!;
  if (count > 0 && latest) {
    const differs = overlapDiffers(active, parsed, count, latest, last!);
    if (differs) damages.push(differs);
  }
  const events = count > 0 ? parsed.events.slice(count) : parsed.events;
  const first = events[0];
  if (first && first.seq !== baseSeq + 1) {
    damages.push(`active.jsonl starts at seq ${first.seq} but the segments end at ${baseSeq}`);
  }
  const loaded: LoadedLog = {
    segments,
    baseSeq,
    activeExists: activeBuf !== undefined,
    active,
    parsed,
    overlap: { count, bytes },
    events,
  };
  if (latest) {
    loaded.latest = latest;
    loaded.footer = latest.footer;
  }
  if (damages.length > 0) loaded.damage = damages.join("; ");
  if (gap || (last && !latest)) loaded.segmentDamage = true;
  return loaded;
}

/**
 * Active's leading events already in the latest segment are the leftovers of a
 * compaction interrupted between its two steps only when they are byte for byte the
 * segment's own records; anything else is damage and both copies are kept.
 */
function overlapDiffers(
  active: Buffer,
  parsed: ParsedLog,
  count: number,
  latest: DecodedSegment,
  name: SegmentName,
): string | undefined {
  let offset = 0;
  for (let i = 0; i < count; i++) {
    const event = parsed.events[i]!;
    const size = parsed.sizes[i]!;
    const stored = event.seq >= name.first ? latest.events[event.seq - name.first] : undefined;
    if (!stored)
      return `active.jsonl starts at seq ${event.seq}, before segment ${name.file} (seq ${name.first}..${name.last})`;
    if (!encodeRecord(stored).equals(active.subarray(offset, offset + size))) {
      return `active.jsonl seq ${event.seq} (byte ${offset}) differs from the same seq in segment ${name.file}; both kept`;
    }
    offset += size;
  }
  return undefined;
}
