import { z } from "zod";
import { ContentBlock } from "./content";
import { FinishReason, ReplayState, Usage } from "./usage";

/** The block kinds a stream can open; tool calls announce their id and name up front. */
export const StreamBlockStart = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text") }),
  z.object({ type: z.literal("reasoning") }),
  z.object({ type: z.literal("tool-call"), id: z.string(), name: z.string() }),
]);
export type StreamBlockStart = z.infer<typeof StreamBlockStart>;

/** Provider-neutral stream output (DESIGN §6). `index` identifies the block within one response. */
export const StreamChunk = z.discriminatedUnion("type", [
  z.object({ type: z.literal("block-start"), index: z.number().int().nonnegative(), block: StreamBlockStart }),
  z.object({ type: z.literal("text-delta"), index: z.number().int().nonnegative(), text: z.string() }),
  z.object({ type: z.literal("reasoning-delta"), index: z.number().int().nonnegative(), text: z.string() }),
  z.object({
    type: z.literal("tool-call-delta"),
    index: z.number().int().nonnegative(),
    argumentsDelta: z.string(),
  }),
  /** Ends a block; `block`, when given, is the authoritative complete block. */
  z.object({ type: z.literal("block-end"), index: z.number().int().nonnegative(), block: ContentBlock.optional() }),
  z.object({ type: z.literal("usage"), usage: Usage }),
  z.object({ type: z.literal("finish"), reason: FinishReason, replayState: ReplayState.optional() }),
]);
export type StreamChunk = z.infer<typeof StreamChunk>;
