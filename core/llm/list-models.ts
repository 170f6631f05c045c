import type { ProviderProfile } from "./types";

/**
 * The models a provider's server lists: the OpenAI-style `GET <base>/models` (OpenAI,
 * vLLM, LM Studio, llama.cpp, OpenRouter, DeepSeek, Ollama's /v1), Anthropic's
 * `/v1/models`, else Ollama's native `/api/tags`. Empty when the server lists none or
 * cannot be reached within the timeout: a model picker then offers the configured model.
 */
export async function listServerModels(profile: ProviderProfile, options: { timeoutMs?: number; fetch?: typeof fetch } = {}): Promise<string[]> {
  const get = options.fetch ?? fetch;
  const signal = AbortSignal.timeout(options.timeoutMs ?? 3000);
  const anthropic = profile.protocol === "anthropic-messages";
  const base = (profile.baseURL ?? (anthropic ? "https://api.anthropic.com" : "https://api.openai.com/v1")).replace(/\/+$/, "");
  const headers: Record<string, string> = { ...profile.headers };
  if (profile.apiKey && profile.apiKey !== "not-needed") {
    if (anthropic) headers["x-api-key"] = profile.apiKey;
    else headers.authorization = `Bearer ${profile.apiKey}`;
  }
  if (anthropic) headers["anthropic-version"] = "2023-06-01";
  const attempt = async (url: string, pick: (body: any) => unknown[]): Promise<string[] | undefined> => {
    try {
      const response = await get(url, { headers, signal });
      if (!response.ok) return undefined;
      const ids = pick(await response.json()).filter((id): id is string => typeof id === "string" && id.length > 0);
      return [...new Set(ids)].sort();
    } catch {
      return undefined;
    }
  };
  // The Anthropic SDK appends /v1 to its base URL; OpenAI-style bases include it.
  const modelsUrl = anthropic && !base.endsWith("/v1") ? `${base}/v1/models` : `${base}/models`;
  const listed = await attempt(modelsUrl, (body) => (Array.isArray(body?.data) ? body.data.map((m: any) => m?.id) : []));
  if (listed && listed.length > 0) return listed;
  // Ollama's native list lives at the server root, beside its /v1.
  const root = base.replace(/\/v1$/, "");
  return (await attempt(`${root}/api/tags`, (body) => (Array.isArray(body?.models) ? body.models.map((m: any) => m?.name ?? m?.model) : []))) ?? [];
}
