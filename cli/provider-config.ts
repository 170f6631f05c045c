import { PROTOCOLS, type ProviderProfile, type Protocol } from "../core/llm/types";
import { CliError } from "./output";

export interface ProviderFlags {
  protocol?: string;
  "base-url"?: string;
  model?: string;
  "context-window"?: string;
}

export interface ResolvedProvider {
  profile: ProviderProfile;
  model: string;
  contextWindow?: number;
}

const HOW = `Configure a provider with flags or environment variables:
  DOWNCITY_PROTOCOL        openai-chat | openai-responses | anthropic-messages
  DOWNCITY_BASE_URL        e.g. http://127.0.0.1:11434/v1 for Ollama (optional for OpenAI/Anthropic)
  DOWNCITY_MODEL           the model id
  DOWNCITY_API_KEY         else OPENAI_API_KEY / ANTHROPIC_API_KEY
  DOWNCITY_CONTEXT_WINDOW  tokens, when the model is not in the built-in table`;

/**
 * The provider profile from flags, else env. Secrets come from env only and are never
 * printed.
 */
export function resolveProvider(flags: ProviderFlags, env: NodeJS.ProcessEnv = process.env): ResolvedProvider {
  const protocolText = flags.protocol ?? env.DOWNCITY_PROTOCOL ?? (env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY ? "anthropic-messages" : env.OPENAI_API_KEY ? "openai-chat" : undefined);
  const model = flags.model ?? env.DOWNCITY_MODEL;
  if (!protocolText || !model) {
    throw new CliError(`No model provider is configured${!model && protocolText ? " (no model given)" : ""}.\n\n${HOW}`);
  }
  if (!(PROTOCOLS as readonly string[]).includes(protocolText)) throw new CliError(`Unknown protocol '${protocolText}'. Use one of: ${PROTOCOLS.join(", ")}.`);
  const protocol = protocolText as Protocol;
  const apiKey = env.DOWNCITY_API_KEY ?? (protocol === "anthropic-messages" ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY);
  const baseURL = flags["base-url"] ?? env.DOWNCITY_BASE_URL;
  const windowText = flags["context-window"] ?? env.DOWNCITY_CONTEXT_WINDOW;
  let contextWindow: number | undefined;
  if (windowText !== undefined) {
    contextWindow = Number(windowText);
    if (!Number.isInteger(contextWindow) || contextWindow <= 0) throw new CliError(`The context window must be a positive whole number of tokens, not '${windowText}'.`);
  }
  const profile: ProviderProfile = { id: "cli", protocol };
  if (baseURL) profile.baseURL = baseURL;
  // Local servers take any key; the SDKs refuse an empty one.
  profile.apiKey = apiKey ?? (baseURL ? "not-needed" : undefined);
  if (!profile.apiKey) throw new CliError(`No API key for ${protocol}: set DOWNCITY_API_KEY (or ${protocol === "anthropic-messages" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"}).`);
  if (contextWindow) profile.models = { [model]: { contextWindow } };
  return contextWindow ? { profile, model, contextWindow } : { profile, model };
}
