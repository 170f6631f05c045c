import { sep } from "node:path";
import type { SessionEvent } from "../protocol";
import type { SearchLocation } from "../protocol/search";
import type { Session } from "../session";
import { SurfaceManager } from "../session/surface";
import type { StorageContext } from "../storage/context";
import { parseDraft } from "../storage/open/draft";
import type { SessionPaths } from "../storage/layout";
import { parseEventLog } from "../storage/records";
import type { SegmentName } from "../storage/segment-codec";
import { decodePlainSegment, segmentPlain } from "../storage/segment-codec";
import { lstatQuiet, readFileQuiet, segmentNamesSync } from "./read-sync";
import { unitCache } from "./unit-cache";
import { blockFields, eventFields, type Field } from "./extract";
import type { RawTest } from "./raw-test";

/**
 * A session's log in the pieces search reads one at a time, newest first: the leftover
 * draft, Active (from memory when the session is hot), then each closed segment.
 */
export type Unit = { kind: "draft"; lastSeq: number } | { kind: "active" } | { kind: "segment"; name: SegmentName };

/** One searchable message of a unit. */
export interface UnitEntry {
  seq: number;
  time: number;
  location: SearchLocation;
  beforeSequence?: number;
  fields: Field[];
}

/** The closed segments, newest first (names only: nothing is read). */
export function segmentUnits(paths: SessionPaths): Unit[] {
  const segments = segmentNamesSync(paths);
  const units: Unit[] = [];
  for (let i = segments.length - 1; i >= 0; i--) units.push({ kind: "segment", name: segments[i]! });
  return units;
}

function readQuietly(path: string): Buffer | undefined {
  try {
    return readFileQuiet(path);
  } catch {
    return undefined; // unreadable (a folder where a file should be, a link): no hit from it
  }
}

/** The seqs on the Surface after folding `events` over `baseSeq` (undefined if they do not fold: a forged log). */
function surfaceOf(events: readonly SessionEvent[], baseSeq: number): Set<number> | undefined {
  const surface = new SurfaceManager(baseSeq);
  try {
    for (const event of events) surface.commit(surface.plan(event));
  } catch {
    return undefined;
  }
  return new Set(surface.nodes);
}

function entriesOf(
  events: readonly SessionEvent[],
  reasoning: boolean,
  locate: (event: SessionEvent) => Pick<UnitEntry, "location" | "beforeSequence">,
): UnitEntry[] {
  const out: UnitEntry[] = [];
  // Newest first.
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    const fields = eventFields(event, reasoning);
    if (fields.length > 0) out.push({ seq: event.seq, time: event.time, fields, ...locate(event) });
  }
  return out;
}

/** Active's entries: a title is no message, it is "in context" while it is in Active. */
function activeEntries(
  events: readonly SessionEvent[],
  reasoning: boolean,
  onSurface: (e: SessionEvent) => boolean,
): UnitEntry[] {
  return entriesOf(events, reasoning, (e) => ({
    location: e.type === "session/title" || onSurface(e) ? "context" : "folded",
  }));
}

/**
 * Reads one unit. A unit that cannot be read as the store would (a segment that fails its
 * checksum, a draft that does not parse) yields nothing: a damaged log gives no hit.
 * `baseSeq` is the last closed seq (Active events at or below it are a compaction's
 * leftover overlap, already in the segment). `raw`: the query's test on the stored bytes;
 * a unit it rules out is not decoded (and yields nothing, as it holds no match).
 */
export async function readUnit(
  ctx: StorageContext,
  paths: SessionPaths,
  unit: Unit,
  baseSeq: number,
  reasoning: boolean,
  from: { hot?: Session; raw?: RawTest } = {},
): Promise<UnitEntry[]> {
  const { hot, raw } = from;
  if (unit.kind === "segment") {
    // Keyed by file identity: a closed segment never changes (a fork's hard link is the same file).
    const st = lstatQuiet(`${paths.segments}${sep}${unit.name.file}`);
    const key = st?.isFile()
      ? `s\u0000${unit.name.file}\u0000${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}\u0000${reasoning}`
      : undefined;
    const cached = key !== undefined ? unitCache.get(key) : undefined;
    if (cached) return cached;
    let events: SessionEvent[];
    try {
      const plain = await segmentPlain(await ctx.fs.readFile(`${paths.segments}${sep}${unit.name.file}`), unit.name);
      if (raw && !raw(plain)) return [];
      events = decodePlainSegment(plain, unit.name).events;
    } catch {
      return [];
    }
    const beforeSequence = unit.name.last + 1;
    const entries = entriesOf(events, reasoning, () => ({ location: "closed", beforeSequence }));
    if (key !== undefined) unitCache.set(key, entries);
    return entries;
  }
  if (unit.kind === "active") {
    if (hot) {
      const onSurface = new Set(hot.surface.nodes);
      return activeEntries(hot.events(), reasoning, (e) => onSurface.has(e.seq));
    }
    // Keyed by the file's stamp (taken before the read: an append after it changes it) and what shapes the entries.
    const st = lstatQuiet(paths.active);
    const key = st?.isFile()
      ? `a\u0000${paths.active}\u0000${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}\u0000${baseSeq}\u0000${reasoning}`
      : undefined;
    const cached = key !== undefined ? unitCache.get(key) : undefined;
    if (cached) return cached;
    const buf = readQuietly(paths.active);
    if (!buf || (raw && !raw(buf))) return [];
    const parsed = parseEventLog(buf).events;
    let skip = 0;
    while (skip < parsed.length && parsed[skip]!.seq <= baseSeq) skip++;
    const events = skip > 0 ? parsed.slice(skip) : parsed;
    // A log whose first event does not follow the segments is damaged: it opens read-only, its events are still the log.
    const onSurface = surfaceOf(events, baseSeq);
    const entries = activeEntries(events, reasoning, (e) =>
      onSurface ? onSurface.has(e.seq) : e.surface !== undefined,
    );
    if (key !== undefined) unitCache.set(key, entries);
    return entries;
  }
  const buf = readQuietly(paths.draft);
  if (!buf) return [];
  const draft = parseDraft(buf);
  // A draft written before the log's last event was completed by it (recovery drops it too).
  if (typeof draft === "string" || draft.afterSeq < unit.lastSeq) return [];
  const fields: Field[] = [];
  blockFields(draft.blocks, reasoning, fields);
  return fields.length > 0 ? [{ seq: draft.afterSeq + 1, time: draft.time, location: "draft", fields }] : [];
}
