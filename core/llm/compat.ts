import type { ChatCompat, ModelCapabilities, ProviderProfile, ServerKind } from "./types";

const LOCAL_PORTS: Record<string, ServerKind> = {
  "11434": "ollama",
  "1234": "lmstudio",
  "8080": "llama.cpp",
  "8000": "vllm",
};

/** The server kind of a profile: its hint, else inferred from the base URL host/port. */
export function serverKind(profile: ProviderProfile): ServerKind {
  if (profile.server) return profile.server;
  if (!profile.baseURL) return profile.protocol === "anthropic-messages" ? "anthropic" : "openai";
  let url: URL;
  try {
    url = new URL(profile.baseURL);
  } catch {
    return "other";
  }
  const host = url.hostname;
  if (host === "api.openai.com") return "openai";
  if (host === "api.anthropic.com") return "anthropic";
  if (host.endsWith("deepseek.com")) return "deepseek";
  if (host.endsWith("openrouter.ai")) return "openrouter";
  // Default ports of the local servers, as they ship (only trusted on local hosts).
  if (isLocalURL(profile.baseURL)) {
    const byPort = LOCAL_PORTS[url.port];
    if (byPort) return byPort;
  }
  return "other";
}

/** Whether a base URL points at this machine or a private network (safe to probe). */
export function isLocalURL(baseURL: string | undefined): boolean {
  if (!baseURL) return false;
  try {
    const host = new URL(baseURL).hostname.replace(/^\[|\]$/g, "");
    return (
      host === "localhost" ||
      host === "::1" ||
      host.endsWith(".local") ||
      /^127\./.test(host) ||
      /^10\./.test(host) ||
      /^192\.168\./.test(host) ||
      /^172\.(1[6-9]|2\d|3[01])\./.test(host) ||
      host === "host.docker.internal"
    );
  } catch {
    return false;
  }
}

const OPENAI_COMPAT: ChatCompat = {
  maxTokensField: "max_completion_tokens",
  systemRole: "system",
  echoReasoning: "never",
  streamUsage: true,
  reasoningEffort: true,
};

/** What most OpenAI-compatible servers accept: the older field names, no reasoning_effort. */
const GENERIC_COMPAT: ChatCompat = {
  maxTokensField: "max_tokens",
  systemRole: "system",
  echoReasoning: "never",
  streamUsage: true,
  reasoningEffort: false,
};

const COMPAT_BY_SERVER: Partial<Record<ServerKind, Partial<ChatCompat>>> = {
  openai: OPENAI_COMPAT,
  // DeepSeek thinking mode requires reasoning_content echoed on tool-call turns.
  deepseek: { reasoningField: "reasoning_content", echoReasoning: "with-tool-calls" },
  vllm: { reasoningField: "reasoning_content" },
  ollama: { reasoningField: "reasoning" },
  openrouter: { reasoningField: "reasoning", maxTokensField: "max_tokens", reasoningEffort: true },
};

/**
 * Effective quirks of a chat endpoint: generic (or OpenAI) defaults → server preset →
 * the profile's own `compat`. `reasoningEffort` is only sent to reasoning models.
 */
export function chatCompat(profile: ProviderProfile, capabilities: ModelCapabilities): ChatCompat {
  const kind = serverKind(profile);
  const base = kind === "openai" ? OPENAI_COMPAT : GENERIC_COMPAT;
  const compat: ChatCompat = { ...base, ...COMPAT_BY_SERVER[kind], ...profile.compat };
  if (!capabilities.reasoning && profile.compat?.reasoningEffort === undefined) compat.reasoningEffort = false;
  return compat;
}
