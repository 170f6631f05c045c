import { serverKind } from "./compat";
import type { ProviderProfile, ServerKind } from "./types";

type Fetch = typeof fetch;
type Probe = (ctx: ProbeContext) => Promise<number | undefined>;

interface ProbeContext {
  origin: string;
  apiBase: string;
  model: string;
  fetch: Fetch;
  headers: Record<string, string>;
  timeoutMs: number;
}

const PROBE_TIMEOUT_MS = 3_000;

/**
 * Asks a local server for the model's context window: Ollama `/api/show`, llama.cpp
 * `/props`, vLLM `/v1/models` (`max_model_len`), LM Studio `/api/v0/models/{id}`.
 * Only servers named by the profile (or on their default local port) are asked; anything that
 * fails or does not say returns undefined — unknown stays unknown.
 */
export async function queryServerContextWindow(
  profile: ProviderProfile,
  model: string,
  fetchImpl: Fetch,
): Promise<number | undefined> {
  if (profile.protocol !== "openai-chat" || !profile.baseURL) return undefined;
  const kind = serverKind(profile);
  const probes = probesFor(kind);
  if (probes.length === 0) return undefined;
  const apiBase = profile.baseURL.replace(/\/+$/, "");
  const ctx: ProbeContext = {
    apiBase,
    origin: apiBase.replace(/\/v1$/, ""),
    model,
    fetch: fetchImpl,
    headers: { ...(profile.apiKey ? { authorization: `Bearer ${profile.apiKey}` } : {}), ...profile.headers },
    timeoutMs: PROBE_TIMEOUT_MS,
  };
  for (const probe of probes) {
    const value = await probe(ctx).catch(() => undefined);
    if (value !== undefined) return value;
  }
  return undefined;
}

function probesFor(kind: ServerKind): Probe[] {
  switch (kind) {
    case "ollama":
      return [ollama];
    case "llama.cpp":
      return [llamaCpp];
    case "vllm":
      return [vllm];
    case "lmstudio":
      return [lmStudio];
    default:
      // Unnamed servers are not probed: a stray request to an unknown endpoint is worse
      // than an unknown window (the profile can name its server or override the window).
      return [];
  }
}

async function getJson(ctx: ProbeContext, url: string, body?: unknown): Promise<unknown> {
  const init: RequestInit = {
    method: body === undefined ? "GET" : "POST",
    headers: { ...ctx.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    signal: AbortSignal.timeout(ctx.timeoutMs),
  };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await ctx.fetch(url, init);
  if (!response.ok) {
    await response.body?.cancel();
    return undefined;
  }
  return response.json();
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** Ollama: a Modelfile `num_ctx` is what the server runs with; else the model's trained length. */
const ollama: Probe = async (ctx) => {
  const json = (await getJson(ctx, `${ctx.origin}/api/show`, { model: ctx.model })) as
    { parameters?: unknown; model_info?: Record<string, unknown> } | undefined;
  if (!json) return undefined;
  if (typeof json.parameters === "string") {
    const match = /^\s*num_ctx\s+(\d+)\s*$/m.exec(json.parameters);
    if (match) return positiveInt(Number(match[1]));
  }
  for (const [key, value] of Object.entries(json.model_info ?? {})) {
    if (key.endsWith(".context_length")) return positiveInt(value);
  }
  return undefined;
};

const llamaCpp: Probe = async (ctx) => {
  const json = (await getJson(ctx, `${ctx.origin}/props`)) as
    { default_generation_settings?: { n_ctx?: unknown }; n_ctx?: unknown } | undefined;
  return positiveInt(json?.default_generation_settings?.n_ctx) ?? positiveInt(json?.n_ctx);
};

const vllm: Probe = async (ctx) => {
  const json = (await getJson(ctx, `${ctx.apiBase}/models`)) as
    { data?: Array<{ id?: unknown; root?: unknown; max_model_len?: unknown }> } | undefined;
  const entry = json?.data?.find((m) => m.id === ctx.model) ?? json?.data?.find((m) => m.root === ctx.model);
  return positiveInt(entry?.max_model_len);
};

const lmStudio: Probe = async (ctx) => {
  const json = (await getJson(ctx, `${ctx.origin}/api/v0/models/${encodeURIComponent(ctx.model)}`)) as
    { loaded_context_length?: unknown; max_context_length?: unknown } | undefined;
  return positiveInt(json?.loaded_context_length) ?? positiveInt(json?.max_context_length);
};
