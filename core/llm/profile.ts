import { z } from "zod";
import { PROTOCOLS, type ProviderProfile } from "./types";

const Capabilities = z
  .object({
    contextWindow: z.number().int().positive(),
    maxOutputTokens: z.number().int().positive(),
    reasoning: z.boolean(),
    images: z.boolean(),
  })
  .partial();

/** Profiles come from user settings: checked at the boundary so a typo fails here, clearly. */
export const ProviderProfileSchema = z.object({
  id: z.string().min(1),
  protocol: z.enum(PROTOCOLS as [ProviderProfile["protocol"], ...ProviderProfile["protocol"][]]),
  baseURL: z.url({ protocol: /^https?$/ }).optional(),
  apiKey: z.string().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  models: z.record(z.string(), Capabilities).optional(),
  compat: z
    .object({
      maxTokensField: z.enum(["max_completion_tokens", "max_tokens"]),
      systemRole: z.enum(["system", "developer"]),
      reasoningField: z.enum(["reasoning_content", "reasoning"]),
      echoReasoning: z.enum(["never", "with-tool-calls", "always"]),
      streamUsage: z.boolean(),
      reasoningEffort: z.boolean(),
    })
    .partial()
    .optional(),
  timeoutMs: z.number().int().positive().optional(),
  server: z
    .enum(["openai", "anthropic", "deepseek", "ollama", "llama.cpp", "vllm", "lmstudio", "openrouter", "other"])
    .optional(),
});

/** A validated, frozen copy of `profile`; throws a readable error naming the bad field. */
export function validateProfile(profile: ProviderProfile): ProviderProfile {
  const result = ProviderProfileSchema.safeParse(profile);
  if (!result.success) {
    const id = typeof (profile as { id?: unknown })?.id === "string" ? ` "${profile.id}"` : "";
    throw new TypeError(`invalid provider profile${id}: ${z.prettifyError(result.error)}`);
  }
  return Object.freeze(result.data as ProviderProfile);
}
