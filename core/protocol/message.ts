import { z } from "zod";
import { ContentBlock } from "./content";
import { FinishReason, ReplayState, Usage } from "./usage";

export const Role = z.enum(["system", "user", "assistant"]);
export type Role = z.infer<typeof Role>;

/**
 * A provider-neutral message. Tool results are user-role messages holding
 * `tool-result` blocks; adapters reshape them for their wire format.
 */
export const Message = z.object({
  role: Role,
  content: z.array(ContentBlock),
  /** Stable id: the seq of the event it was projected from, when it has one. */
  id: z.string().optional(),
  interrupted: z.boolean().optional(),
  usage: Usage.optional(),
  finishReason: FinishReason.optional(),
  replayState: ReplayState.optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
});
export type Message = z.infer<typeof Message>;
