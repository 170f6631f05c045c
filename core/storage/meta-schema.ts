import { z } from "zod";
import { META_ID_MAX, META_TEXT_MAX } from "./meta";

// The zod form of meta.json, apart from `meta.ts` so that lists (which check meta by
// hand) never compile zod. `test/storage/meta-validator.test.ts` holds the two together.
const text = z.string().max(META_TEXT_MAX);

export const ForkOrigin = z.object({
  sessionId: z.string().max(META_ID_MAX),
  agentId: z.string().max(META_ID_MAX),
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
  sessionId: z.string().max(META_ID_MAX),
  agentId: z.string().max(META_ID_MAX),
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
