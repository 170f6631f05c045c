import { z } from "zod";

/**
 * One project rules file as the chat lists it (issue 25 item 2): which files the session's
 * next request puts in its system prompt, and whether the budget cut them.
 */
export const RuleFileInfo = z.object({
  /** Workspace-relative path, `/`-separated. */
  path: z.string().min(1).max(4096),
  /** The folder it applies to ("" = the whole workspace). */
  scope: z.string().max(4096),
  /** Characters of the file that were read (after the per-file size cap). */
  chars: z.number().int().nonnegative(),
  /** whole: all of it is in the prompt; truncated: cut by the budget or the size cap; omitted: no budget left; refused: a link, not a regular file, or unreadable. */
  state: z.enum(["whole", "truncated", "omitted", "refused"]),
  /** Why it was truncated, omitted or refused. */
  note: z.string().max(500).optional(),
});
export type RuleFileInfo = z.infer<typeof RuleFileInfo>;

export const SessionRules = z.object({
  files: z.array(RuleFileInfo),
  /** The stated budget, in tokens (estimated at 4 characters a token). */
  budgetTokens: z.number().int().nonnegative(),
});
export type SessionRules = z.infer<typeof SessionRules>;
