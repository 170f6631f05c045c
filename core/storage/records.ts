import { z } from "zod";
import type { SessionEvent } from "../protocol";

/**
 * The last record of every segment: the cumulative summary of seq 1..throughSeq.
 * It is not an event (no `seq`), so a reader can always tell the two apart.
 */
export const SummaryFooter = z.looseObject({
  kind: z.literal("summary"),
  throughSeq: z.number().int().nonnegative(),
  text: z.string(),
  messageCount: z.number().int().nonnegative(),
  /** Title in force at throughSeq: titles closed into a segment must survive a cold open. */
  title: z
    .object({
      title: z.string().optional(),
      source: z.enum(["fallback", "llm", "user"]).optional(),
      seq: z.number().int().positive().optional(),
      pinned: z.boolean(),
    })
    .optional(),
  model: z.string().optional(),
  /** Session creation time, so meta.json can be rebuilt without reading the first segment. */
  createdAt: z.number().optional(),
  /**
   * `sha256-<hex>` of the segment's plain text with this field left out of the footer:
   * zstd frames carry no checksum through the pinned binding, and a flipped bit can
   * decode to different, valid events. Segments written before it have none.
   */
  checksum: z.string().optional(),
});
export type SummaryFooter = z.infer<typeof SummaryFooter>;

export function encodeRecord(record: unknown): Buffer {
  return Buffer.from(`${JSON.stringify(record)}\n`, "utf8");
}

/** Cheap shape check for a stored event line; full validation happens in `Session.seed`. */
export function looksLikeEvent(value: unknown): value is SessionEvent {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    Number.isSafeInteger(v.seq) && (v.seq as number) > 0 && typeof v.type === "string" && typeof v.time === "number"
  );
}

export interface ParsedLog {
  /** Events of the valid prefix, seq-contiguous. */
  events: SessionEvent[];
  /** Byte length of each event's record (line + newline), parallel to `events`. */
  sizes: number[];
  /** Byte offset just after the last valid record. */
  validEnd: number;
  /** A problem after the last valid record only: the file may be cut back to validEnd. */
  tornTail?: string;
  /** A problem before the last valid record: the file must be kept as it is. */
  damage?: string;
}

/**
 * Splits a JSONL event log into its valid, seq-contiguous prefix and what follows.
 * A bad record followed only by more bad bytes is a torn tail (a crash mid-write);
 * a bad record or a gap followed by a good event is damage in the middle.
 */
export function parseEventLog(buf: Buffer): ParsedLog {
  const events: SessionEvent[] = [];
  const sizes: number[] = [];
  let pos = 0;
  let validEnd = 0;
  let problem: string | undefined;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl < 0) {
      problem ??= `partial line of ${buf.length - pos} bytes`;
      break;
    }
    const line = buf.subarray(pos, nl);
    const start = pos;
    pos = nl + 1;
    let value: unknown;
    try {
      value = JSON.parse(line.toString("utf8"));
    } catch {
      problem ??= `unparsable record at byte ${start}`;
      continue;
    }
    if (!looksLikeEvent(value)) {
      problem ??= `record at byte ${start} is not an event`;
      continue;
    }
    const last = events[events.length - 1];
    if (problem === undefined && (!last || value.seq === last.seq + 1)) {
      events.push(value);
      sizes.push(pos - start);
      validEnd = pos;
      continue;
    }
    // A complete event beyond the valid prefix is real data behind a gap or bad record:
    // damage, never a torn tail (a torn tail is cut).
    if (value.seq > (last?.seq ?? 0)) {
      const before = problem ?? `seq ${last!.seq + 1}${value.seq > last!.seq + 2 ? `..${value.seq - 1}` : ""} missing`;
      return { events, sizes, validEnd, damage: `${before}, followed by seq ${value.seq} at byte ${start}` };
    }
    problem ??= `seq ${value.seq} at byte ${start} repeats an earlier seq`;
  }
  const parsed: ParsedLog = { events, sizes, validEnd };
  if (problem !== undefined) parsed.tornTail = problem;
  return parsed;
}
