// Loaded on first use: the native addon's loader costs milliseconds that lists and
// opens of uncompacted sessions never need to pay.
let zstdModule: typeof import("@mongodb-js/zstd") | undefined;
const zstd = () => (zstdModule ??= require("@mongodb-js/zstd") as typeof import("@mongodb-js/zstd"));
import { createHash } from "node:crypto";
import type { SessionEvent } from "../protocol";
import { encodeRecord, looksLikeEvent, SummaryFooter } from "./records";

/** `000000000001-000000000900.jsonl.zst`: the file name is the index (no manifest). */
const NAME = /^(\d{12})-(\d{12})\.jsonl(\.zst)?$/;
export const ZSTD_LEVEL = 3;
/** Plaintext per zstd frame; frames are cut at record boundaries. */
export const FRAME_BYTES = 256 * 1024;

export interface SegmentName {
  first: number;
  last: number;
  compressed: boolean;
  file: string;
}

export function segmentFileName(first: number, last: number): string {
  return `${String(first).padStart(12, "0")}-${String(last).padStart(12, "0")}.jsonl.zst`;
}

export function parseSegmentName(file: string): SegmentName | undefined {
  const m = NAME.exec(file);
  if (!m) return undefined;
  const first = Number(m[1]);
  const last = Number(m[2]);
  if (first < 1 || last < first) return undefined;
  return { first, last, compressed: m[3] !== undefined, file };
}

/** Sorted by range; a `.jsonl` and a `.jsonl.zst` of one range: the compressed one wins. */
export function sortSegments(names: Iterable<string>): SegmentName[] {
  const byRange = new Map<string, SegmentName>();
  for (const file of names) {
    const s = parseSegmentName(file);
    if (!s) continue;
    const key = `${s.first}-${s.last}`;
    const prev = byRange.get(key);
    if (!prev || (s.compressed && !prev.compressed)) byRange.set(key, s);
  }
  return [...byRange.values()].sort((a, b) => a.first - b.first || a.last - b.last);
}

/** The first break in 1..N coverage of a sorted segment list, as a message. */
export function findSegmentGap(segments: readonly SegmentName[]): string | undefined {
  let next = 1;
  for (const s of segments) {
    if (s.first !== next) return `segment ${s.file} starts at ${s.first}, expected ${next}`;
    next = s.last + 1;
  }
  return undefined;
}

/**
 * Events then the footer, as independent zstd frames cut at record boundaries (the
 * footer alone in the last frame), so `zstd -d` yields plain JSONL.
 */
export async function encodeSegment(events: readonly SessionEvent[], footer: SummaryFooter): Promise<Buffer> {
  const frames: Buffer[] = [];
  let chunk: Buffer[] = [];
  let size = 0;
  const hash = createHash("sha256");
  const cut = async () => {
    if (chunk.length === 0) return;
    frames.push(await zstd().compress(Buffer.concat(chunk, size), ZSTD_LEVEL));
    chunk = [];
    size = 0;
  };
  for (const event of events) {
    const line = encodeRecord(event);
    hash.update(line);
    if (size > 0 && size + line.length > FRAME_BYTES) await cut();
    chunk.push(line);
    size += line.length;
  }
  await cut();
  const { checksum: _old, ...plainFooter } = footer;
  hash.update(encodeRecord(plainFooter));
  chunk.push(encodeRecord({ ...plainFooter, checksum: `sha256-${hash.digest("hex")}` }));
  size = chunk[0]!.length;
  await cut();
  return Buffer.concat(frames);
}

export interface DecodedSegment {
  events: SessionEvent[];
  footer: SummaryFooter;
}

export class SegmentError extends Error {
  override readonly name = "SegmentError";
}

/** Decodes and checks a segment against its name: exact seq range, footer last. */
export async function decodeSegment(data: Buffer, name: SegmentName): Promise<DecodedSegment> {
  return decodePlainSegment(await segmentPlain(data, name), name);
}

/** A segment file's plain JSONL (decompressed), not yet checked: search looks at its bytes before decoding them. */
export async function segmentPlain(data: Buffer, name: SegmentName): Promise<Buffer> {
  try {
    return name.compressed ? await zstd().decompress(data) : data;
  } catch (error) {
    throw new SegmentError(`segment ${name.file} cannot be decompressed (${(error as Error).message})`);
  }
}

/** `decodeSegment` after `segmentPlain`. */
export function decodePlainSegment(plain: Buffer, name: SegmentName): DecodedSegment {
  const text = plain.toString("utf8");
  if (!text.endsWith("\n")) throw new SegmentError(`segment ${name.file} does not end with a complete record`);
  const lines = text.slice(0, -1).split("\n");
  const events: SessionEvent[] = [];
  let footer: SummaryFooter | undefined;
  let raw: Record<string, unknown> = {};
  for (let i = 0; i < lines.length; i++) {
    let value: unknown;
    try {
      value = JSON.parse(lines[i]!);
    } catch {
      throw new SegmentError(`segment ${name.file}: record ${i + 1} does not parse`);
    }
    if (i === lines.length - 1) {
      const parsed = SummaryFooter.safeParse(value);
      if (!parsed.success) throw new SegmentError(`segment ${name.file} has no summary footer`);
      footer = parsed.data;
      raw = value as Record<string, unknown>;
    } else {
      const expected = name.first + i;
      if (!looksLikeEvent(value) || value.seq !== expected) {
        throw new SegmentError(`segment ${name.file}: record ${i + 1} is not event seq ${expected}`);
      }
      events.push(value);
    }
  }
  if (events.length !== name.last - name.first + 1) {
    throw new SegmentError(
      `segment ${name.file} holds ${events.length} events, its name says ${name.last - name.first + 1}`,
    );
  }
  if (footer!.throughSeq !== name.last) {
    throw new SegmentError(`segment ${name.file}: footer covers 1..${footer!.throughSeq}, expected 1..${name.last}`);
  }
  if (footer!.checksum !== undefined) {
    const { checksum, ...plainFooter } = raw;
    const body = plain.subarray(0, plain.length - Buffer.byteLength(lines[lines.length - 1]!, "utf8") - 1);
    const actual = `sha256-${createHash("sha256").update(body).update(encodeRecord(plainFooter)).digest("hex")}`;
    if (actual !== checksum)
      throw new SegmentError(`segment ${name.file}: checksum mismatch, its content changed after it was written`);
  }
  return { events, footer: footer! };
}
