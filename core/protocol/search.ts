import { z } from "zod";

/**
 * What the chat's find bar gets back from "search this whole session" (issue 23): one
 * hit of the core query, reduced to what the view shows. The snippet is model output:
 * the view renders it as text only, marking `ranges` (UTF-16 offsets, end exclusive).
 */
export const SessionSearchHit = z.object({
  seq: z.number().int().positive(),
  kind: z.enum(["user", "assistant", "tool", "title"]),
  snippet: z.string().max(2000),
  /** [start, end] pairs (the webview's zod has no tuple). */
  ranges: z.array(z.array(z.number().int().nonnegative()).length(2)).max(100),
  time: z.number(),
  /** context: still in the model's context; folded / closed: only in history; draft: the streaming draft. */
  location: z.enum(["context", "folded", "closed", "draft"]),
});
export type SessionSearchHit = z.infer<typeof SessionSearchHit>;

/** Where a reveal points: a message of the shown session, and the words to mark in it. */
export const RevealTarget = z.object({
  seq: z.number().int().positive(),
  query: z.string().max(500).optional(),
});
export type RevealTarget = z.infer<typeof RevealTarget>;
