import { z } from "zod";

/** Bounds of what a list shows: an event title is at most 500 characters; meta obeys the same. */
export const META_TEXT_MAX = 500;
const MAX_ID = 4096;
const text = z.string().max(META_TEXT_MAX);

export const ForkOrigin = z.object({
  sessionId: z.string().max(MAX_ID),
  agentId: z.string().max(MAX_ID),
  atSeq: z.number().int().nonnegative(),
  /** Forked from a damaged session's valid prefix only. */
  validPrefix: z.literal(true).optional(),
});
export type ForkOrigin = z.infer<typeof ForkOrigin>;

/**
 * meta.json: the list attributes of one session. An accelerator only: when missing,
 * corrupt or behind the log it is rebuilt from the log, never trusted over it.
 */
export const SessionMeta = z.looseObject({
  version: z.literal(1),
  sessionId: z.string().max(MAX_ID),
  agentId: z.string().max(MAX_ID),
  title: text.optional(),
  titleSource: z.enum(["fallback", "llm", "user"]).optional(),
  model: text.optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
  messageCount: z.number().int().nonnegative(),
  /** On-disk bytes of the history (segments + Active). */
  historyBytes: z.number().int().nonnegative(),
  timeZone: text,
  forkedFrom: ForkOrigin.optional(),
  /** On-disk bytes of the closed segments (historyBytes minus Active). */
  segmentBytes: z.number().int().nonnegative().optional(),
  /** Last seq the meta was computed at: lets an open tell a stale meta from a fresh one. */
  lastSeq: z.number().int().nonnegative(),
});
export type SessionMeta = z.infer<typeof SessionMeta>;

const isNum = (v: unknown) => typeof v === "number" && Number.isFinite(v);
const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
const isOptText = (v: unknown) => v === undefined || (typeof v === "string" && v.length <= META_TEXT_MAX);
const isId = (v: unknown) => typeof v === "string" && v.length <= MAX_ID;

/**
 * The same rules as `SessionMeta`, checked by hand: lists parse one meta per session and
 * at 10,000 sessions the schema walk is a third of the list's time. Anything the fast
 * check does not accept goes through the schema, so the two cannot disagree on a pass.
 */
function fastMeta(v: Record<string, unknown>): boolean {
  const f = v.forkedFrom as Record<string, unknown> | undefined;
  return (
    v.version === 1 &&
    isId(v.sessionId) &&
    isId(v.agentId) &&
    isOptText(v.title) &&
    (v.titleSource === undefined || v.titleSource === "fallback" || v.titleSource === "llm" || v.titleSource === "user") &&
    isOptText(v.model) &&
    isNum(v.createdAt) &&
    isNum(v.updatedAt) &&
    isCount(v.messageCount) &&
    isCount(v.historyBytes) &&
    (v.segmentBytes === undefined || isCount(v.segmentBytes)) &&
    typeof v.timeZone === "string" &&
    v.timeZone.length <= META_TEXT_MAX &&
    isCount(v.lastSeq) &&
    (f === undefined || (typeof f === "object" && f !== null && isId(f.sessionId) && isId(f.agentId) && isCount(f.atSeq) && (f.validPrefix === undefined ? Object.keys(f).length === 3 : f.validPrefix === true && Object.keys(f).length === 4)))
  );
}

export function parseMeta(data: Buffer | undefined): SessionMeta | undefined {
  if (!data) return undefined;
  try {
    const value: unknown = JSON.parse(data.toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value) && fastMeta(value as Record<string, unknown>)) return value as SessionMeta;
    const parsed = SessionMeta.safeParse(value);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export function encodeMeta(meta: SessionMeta): Buffer {
  return Buffer.from(`${JSON.stringify(meta, null, 1)}\n`, "utf8");
}

export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}
