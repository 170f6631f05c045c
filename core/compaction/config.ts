import { z } from "zod";

/** Compaction thresholds (DESIGN §8). All configurable; defaults are the spec's. */
export const CompactionConfig = z.object({
  /** Real usage ≥ this share of the context window schedules a compaction. */
  triggerRatio: z.number().gt(0).lte(1).default(0.95),
  /** The first real usage after a compaction must be ≤ this share, else deep-compact. */
  verifyRatio: z.number().gt(0).lte(1).default(0.5),
  /** Recent history kept verbatim in Active, as a share of the window. */
  retainRatio: z.number().min(0).lt(1).default(0.16),
  /** Tool results longer than this (code points) are pruned to head + tail. */
  toolResultMaxCodePoints: z.number().int().positive().default(8192),
  toolResultHeadCodePoints: z.number().int().nonnegative().default(4096),
  toolResultTailCodePoints: z.number().int().nonnegative().default(1024),
  /** Reasoning longer than this (code points) is folded to head + tail. */
  reasoningMaxCodePoints: z.number().int().positive().default(4096),
  reasoningHeadCodePoints: z.number().int().nonnegative().default(1024),
  reasoningTailCodePoints: z.number().int().nonnegative().default(512),
  /** Summariser input is cut into chunks of at most this many characters. */
  summaryChunkChars: z.number().int().positive().default(48_000),
  summaryMaxTokens: z.number().int().positive().default(8192),
  /**
   * Only used to size the retained tail (never to trigger): characters per token.
   * The trigger itself is the provider's real usage.
   */
  charsPerToken: z.number().positive().default(4),
});
export type CompactionConfig = z.infer<typeof CompactionConfig>;
export type CompactionSettings = z.input<typeof CompactionConfig>;
