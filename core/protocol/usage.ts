import { z } from "zod";

/** Token usage as the provider reported it (never estimated). */
export const Usage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  totalTokens: z.number().int().nonnegative().optional(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  cacheReadTokens: z.number().int().nonnegative().optional(),
  cacheWriteTokens: z.number().int().nonnegative().optional(),
});
export type Usage = z.infer<typeof Usage>;

/** Tokens that count against the context window: `totalTokens`, else input + output (DESIGN §8). */
export function contextTokens(usage: Usage): number {
  return usage.totalTokens ?? usage.inputTokens + usage.outputTokens;
}

export const FinishReason = z.enum(["stop", "length", "tool-calls", "content-filter", "aborted", "error", "other"]);
export type FinishReason = z.infer<typeof FinishReason>;

/**
 * Adapter-private state the next call of the same adapter must echo (Responses ids,
 * Anthropic thinking signatures). Opaque to everyone else; stripped across adapters.
 */
export const ReplayState = z.object({
  adapter: z.string().min(1),
  version: z.number().int().positive(),
  data: z.unknown(),
});
export type ReplayState = z.infer<typeof ReplayState>;

/**
 * The context figure the chat meter and the status bar both show (issue 20 item 5): the
 * last request's real tokens against `window` (the selected model's, when settings name
 * one, else the window the run reported). Undefined when no window is known.
 */
export function contextShare(
  usage: Usage,
  window: number | undefined,
): { used: number; window: number; ratio: number } | undefined {
  if (!window) return undefined;
  const used = contextTokens(usage);
  return { used, window, ratio: Math.min(1, used / window) };
}

/**
 * The window the meter, the status bar and automatic compaction all measure against when
 * neither the profile, the server nor the model table gives one (stated in the meter's
 * and status bar's tooltips).
 */
export const DEFAULT_CONTEXT_WINDOW = 32_768;
