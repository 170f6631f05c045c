import { probeModels } from "./probe";
import type { ProviderProfile } from "./types";

/**
 * The models a provider's server lists (probe.ts's `probeModels`: the OpenAI-style
 * `/models`, Anthropic's `/v1/models`, else Ollama's `/api/tags`). Empty when the server
 * lists none or cannot be reached within the timeout: a model picker then offers the
 * configured model.
 */
export async function listServerModels(
  profile: ProviderProfile,
  options: { timeoutMs?: number; fetch?: typeof fetch } = {},
): Promise<string[]> {
  const anthropic = profile.protocol === "anthropic-messages";
  const baseURL = profile.baseURL ?? (anthropic ? "https://api.anthropic.com" : "https://api.openai.com/v1");
  const listed = await probeModels(
    {
      protocol: profile.protocol,
      baseURL,
      ...(profile.apiKey ? { apiKey: profile.apiKey } : {}),
      ...(profile.headers ? { headers: profile.headers } : {}),
    },
    { listTimeoutMs: options.timeoutMs ?? 3000, ...(options.fetch ? { fetch: options.fetch } : {}) },
  );
  return listed.models;
}
