import { z } from "zod";

/**
 * Session search (issue 23): what a host asks and what each hit says. Here, not in
 * core/search, because hits travel to the webview (find bar) and the QuickPick as data.
 */

const Id = z.string().min(1).max(200);

export const SearchOptions = z.object({
  query: z.string().max(1000),
  /** Default false: the query is literal text. */
  regex: z.boolean().optional(),
  /** Whole word: no letter, digit or `_` right before or after a match. */
  word: z.boolean().optional(),
  /** Default: smart case (case-sensitive exactly when the query has an upper-case letter). */
  caseSensitive: z.boolean().optional(),
  /** Also search reasoning blocks (default false). */
  reasoning: z.boolean().optional(),
  /** Default: every agent. */
  agentId: Id.optional(),
  /** Default "all": live and archived sessions. */
  area: z.enum(["sessions", "archived", "all"]).optional(),
  /** Only this session (a chat's "search this whole session"). */
  session: z.object({ agentId: Id, sessionId: Id }).optional(),
  /** Hits in total (default 200). */
  limit: z.number().int().positive().max(100_000).optional(),
  /** Hits per session (default: no cap). */
  perSession: z.number().int().positive().optional(),
});
export type SearchOptions = z.infer<typeof SearchOptions> & { signal?: AbortSignal };

export const SearchHitKind = z.enum(["user", "assistant", "tool", "title"]);
export const SearchHitPart = z.enum(["text", "reasoning", "tool-call", "tool-result", "title"]);

/**
 * Where the matched message is: `context` (Active, on the model's Surface), `folded`
 * (Active but shadowed on the Surface by a fold), `closed` (in a closed segment), `draft`
 * (the leftover streaming draft).
 */
export const SearchLocation = z.enum(["context", "folded", "closed", "draft"]);

export const SearchHit = z.object({
  agentId: Id,
  sessionId: Id,
  archived: z.boolean(),
  title: z.string().optional(),
  seq: z.number().int().positive(),
  kind: SearchHitKind,
  part: SearchHitPart,
  time: z.number(),
  /** One line of plain text (control and bidi characters replaced by spaces): model output, render as text. */
  snippet: z.string(),
  /** UTF-16 offsets into `snippet`, end exclusive. */
  ranges: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
  /** Matches in the whole field (the snippet shows those near the first). */
  matches: z.number().int().positive(),
  location: SearchLocation,
  inContext: z.boolean(),
  /** For `closed`: `messages(ref, { beforeSequence })` returns the segment that holds `seq`. */
  beforeSequence: z.number().int().positive().optional(),
});
export type SearchHit = z.infer<typeof SearchHit>;
export type SearchHitKind = z.infer<typeof SearchHitKind>;
export type SearchHitPart = z.infer<typeof SearchHitPart>;
export type SearchLocation = z.infer<typeof SearchLocation>;
