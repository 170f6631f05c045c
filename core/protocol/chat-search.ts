import { z } from "zod";
import { SearchHit } from "./search";

/**
 * What the chat's find bar gets back from "search this whole session" (issue 23): one
 * hit of the core query, reduced to what the view shows. The snippet is model output:
 * the view renders it as text only, marking `ranges`.
 */
export const SessionSearchHit = SearchHit.pick({
  seq: true,
  kind: true,
  snippet: true,
  ranges: true,
  time: true,
  location: true,
});
export type SessionSearchHit = z.infer<typeof SessionSearchHit>;

/** Where a reveal points: a message of the shown session, and the words to mark in it. */
export const RevealTarget = z.object({
  seq: z.number().int().positive(),
  query: z.string().max(500).optional(),
});
export type RevealTarget = z.infer<typeof RevealTarget>;
