import { z } from "zod";
import { Message } from "./message";

/** A tool as offered to the model: JSON Schema parameters. */
export const ToolSpec = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()),
});
export type ToolSpec = z.infer<typeof ToolSpec>;

export const ReasoningEffort = z.enum(["minimal", "low", "medium", "high"]);
export type ReasoningEffort = z.infer<typeof ReasoningEffort>;

/** One provider call, provider-neutral (DESIGN §6). */
export const GenerateOptions = z.object({
  /** Provider profile id. */
  provider: z.string().min(1),
  model: z.string().min(1),
  messages: z.array(Message),
  system: z.string().optional(),
  tools: z.array(ToolSpec).optional(),
  reasoningEffort: ReasoningEffort.optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
  stop: z.array(z.string()).optional(),
  sessionId: z.string().optional(),
  signal: z.custom<AbortSignal>((v) => v === undefined || v instanceof AbortSignal).optional(),
});
export type GenerateOptions = z.infer<typeof GenerateOptions>;
