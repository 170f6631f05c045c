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
