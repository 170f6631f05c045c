import { PROTOCOLS, type ProviderProfile, type Protocol } from "./types";

/**
 * The one provider profile the environment describes (DOWNCITY_PROTOCOL / _BASE_URL /
 * _MODEL / _API_KEY / _CONTEXT_WINDOW), shared by the CLI and the VS Code host so both
 * read it the same way. Secrets come from the environment only and are never printed.
 */

export interface ProviderOverrides {
  protocol?: string;
  baseURL?: string;
  model?: string;
  contextWindow?: string;
}

export interface ResolvedProvider {
  profile: ProviderProfile;
  model: string;
  contextWindow?: number;
}

export const ENV_PROVIDER_HELP = `Configure a provider with flags or environment variables:
  DOWNCITY_PROTOCOL        openai-chat | openai-responses | anthropic-messages
  DOWNCITY_BASE_URL        e.g. http://127.0.0.1:11434/v1 for Ollama (optional for OpenAI/Anthropic)
  DOWNCITY_MODEL           the model id
  DOWNCITY_API_KEY         else OPENAI_API_KEY / ANTHROPIC_API_KEY
  DOWNCITY_CONTEXT_WINDOW  tokens, when the model is not in the built-in table`;

/** A provider configuration that cannot be used; the message says what to set. */
export class ProviderConfigError extends Error {
  override readonly name = "ProviderConfigError";
}

/** True when the environment names a provider at all (a protocol or an API key). */
export function envConfiguresProvider(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.DOWNCITY_PROTOCOL || env.DOWNCITY_MODEL || env.OPENAI_API_KEY || env.ANTHROPIC_API_KEY);
}

/** The profile (id `profileId`) from `overrides`, else the environment; throws ProviderConfigError. */
export function resolveEnvProvider(
  env: NodeJS.ProcessEnv,
  overrides: ProviderOverrides = {},
  profileId = "env",
): ResolvedProvider {
  const protocolText =
    overrides.protocol ??
    env.DOWNCITY_PROTOCOL ??
    (env.ANTHROPIC_API_KEY && !env.OPENAI_API_KEY
      ? "anthropic-messages"
      : env.OPENAI_API_KEY
        ? "openai-chat"
        : undefined);
  const model = overrides.model ?? env.DOWNCITY_MODEL;
  if (!protocolText || !model) {
    throw new ProviderConfigError(
      `No model provider is configured${!model && protocolText ? " (no model given)" : ""}.\n\n${ENV_PROVIDER_HELP}`,
    );
  }
  if (!(PROTOCOLS as readonly string[]).includes(protocolText))
    throw new ProviderConfigError(`Unknown protocol '${protocolText}'. Use one of: ${PROTOCOLS.join(", ")}.`);
  const protocol = protocolText as Protocol;
  const apiKey =
    env.DOWNCITY_API_KEY ?? (protocol === "anthropic-messages" ? env.ANTHROPIC_API_KEY : env.OPENAI_API_KEY);
  const baseURL = overrides.baseURL ?? env.DOWNCITY_BASE_URL;
  const windowText = overrides.contextWindow ?? env.DOWNCITY_CONTEXT_WINDOW;
  let contextWindow: number | undefined;
  if (windowText !== undefined) {
    contextWindow = Number(windowText);
    if (!Number.isInteger(contextWindow) || contextWindow <= 0)
      throw new ProviderConfigError(
        `The context window must be a positive whole number of tokens, not '${windowText}'.`,
      );
  }
  const profile: ProviderProfile = { id: profileId, protocol };
  if (baseURL) profile.baseURL = baseURL;
  // Local servers take any key; the SDKs refuse an empty one.
  profile.apiKey = apiKey ?? (baseURL ? "not-needed" : undefined);
  if (!profile.apiKey)
    throw new ProviderConfigError(
      `No API key for ${protocol}: set DOWNCITY_API_KEY (or ${protocol === "anthropic-messages" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"}).`,
    );
  if (contextWindow) profile.models = { [model]: { contextWindow } };
  return contextWindow ? { profile, model, contextWindow } : { profile, model };
}
