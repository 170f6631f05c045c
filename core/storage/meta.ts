import type { ForkOrigin, SessionMeta } from "./meta-schema";

export type { ForkOrigin, SessionMeta };

/** Bounds of what a list shows: an event title is at most 500 characters; meta obeys the same. */
export const META_TEXT_MAX = 500;
export const META_ID_MAX = 4096;

const isNum = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
/** Within `max` Unicode code points, as the schema counts (a surrogate pair is one). */
function fits(v: unknown, max: number): boolean {
  if (typeof v !== "string") return false;
  if (v.length <= max) return true;
  let points = 0;
  for (const _ of v) if (++points > max) return false;
  return true;
}
const isText = (v: unknown) => fits(v, META_TEXT_MAX);
const isOptText = (v: unknown) => v === undefined || isText(v);
const isId = (v: unknown) => fits(v, META_ID_MAX);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `ForkOrigin` by hand: its known keys only (the schema strips the others), or undefined. */
function forkOrigin(f: unknown): ForkOrigin | undefined {
  if (!isRecord(f) || !isId(f.sessionId) || !isId(f.agentId) || !isCount(f.atSeq)) return undefined;
  if (f.validPrefix !== undefined && f.validPrefix !== true) return undefined;
  const origin: ForkOrigin = {
    sessionId: f.sessionId as string,
    agentId: f.agentId as string,
    atSeq: f.atSeq as number,
  };
  if (f.validPrefix) origin.validPrefix = true;
  return origin;
}

/**
 * The `SessionMeta` schema checked by hand (a list parses one meta per session, and at
 * 10,000 sessions the schema walk and compiling zod were a third of the list's time).
 * Unknown keys pass, as with the schema's loose object. Held equal to the schema by
 * `test/storage/meta-validator.test.ts`.
 */
function checkMeta(v: Record<string, unknown>): SessionMeta | undefined {
  const ok =
    v.version === 1 &&
    isId(v.sessionId) &&
    isId(v.agentId) &&
    isOptText(v.title) &&
    (v.titleSource === undefined ||
      v.titleSource === "fallback" ||
      v.titleSource === "llm" ||
      v.titleSource === "user") &&
    isOptText(v.model) &&
    isNum(v.createdAt) &&
    isNum(v.updatedAt) &&
    isCount(v.messageCount) &&
    isCount(v.historyBytes) &&
    (v.segmentBytes === undefined || isCount(v.segmentBytes)) &&
    isText(v.timeZone) &&
    isCount(v.lastSeq);
  if (!ok) return undefined;
  if (v.forkedFrom === undefined) return v as SessionMeta;
  const origin = forkOrigin(v.forkedFrom);
  if (!origin) return undefined;
  v.forkedFrom = origin;
  return v as SessionMeta;
}

export function parseMeta(data: Buffer | string | undefined): SessionMeta | undefined {
  if (data === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(typeof data === "string" ? data : data.toString("utf8"));
  } catch {
    return undefined;
  }
  return isRecord(value) ? checkMeta(value) : undefined;
}

export function encodeMeta(meta: SessionMeta): Buffer {
  return Buffer.from(`${JSON.stringify(meta, null, 1)}\n`, "utf8");
}

export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}
