import type { GenerateOptions, StreamChunk } from "../protocol";

/** Wire protocols an adapter can speak (DESIGN §6). */
export type Protocol = "openai-chat" | "openai-responses" | "anthropic-messages";
export const PROTOCOLS: readonly Protocol[] = ["openai-chat", "openai-responses", "anthropic-messages"];

/** What a model can do. `contextWindow` undefined means unknown: compaction must be told. */
export interface ModelCapabilities {
  contextWindow?: number;
  maxOutputTokens?: number;
  reasoning: boolean;
  images: boolean;
  /** Where `contextWindow` came from, so callers can tell a fact from a table entry. */
  contextWindowSource?: "table" | "profile" | "server";
}

/**
 * Which kind of server a profile points at. Picks compat defaults and how the context
 * window is queried; when absent it is inferred from the base URL.
 */
export type ServerKind =
  "openai" | "anthropic" | "deepseek" | "ollama" | "llama.cpp" | "vllm" | "lmstudio" | "openrouter" | "other";

/**
 * Per-endpoint quirks of OpenAI-compatible servers (openai-chat only).
 * Defaults describe api.openai.com.
 */
export interface ChatCompat {
  /** Which field carries the output limit. */
  maxTokensField: "max_completion_tokens" | "max_tokens";
  /** Role used for the system prompt; some servers reject "developer". */
  systemRole: "system" | "developer";
  /** Field that carries streamed reasoning (DeepSeek: reasoning_content; some: reasoning). */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Whether reasoning must be sent back on assistant messages that carried tool calls. */
  echoReasoning: "never" | "with-tool-calls" | "always";
  /** Whether `stream_options.include_usage` is accepted. */
  streamUsage: boolean;
  /** Whether `reasoning_effort` is accepted. */
  reasoningEffort: boolean;
}

/** A configured provider endpoint. The host resolves the API key (SecretStorage or env). */
export interface ProviderProfile {
  id: string;
  protocol: Protocol;
  baseURL?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  /** Capability overrides per model id. */
  models?: Record<string, Partial<ModelCapabilities>>;
  compat?: Partial<ChatCompat>;
  /** Request timeout in ms for one call (default: SDK's). */
  timeoutMs?: number;
  /** Server kind hint (see ServerKind). */
  server?: ServerKind;
}

export type LlmErrorKind =
  "context-length" | "rate-limit" | "auth" | "bad-request" | "transient" | "aborted" | "unknown";

/** A provider failure normalised to a neutral kind; the provider's message is kept. */
export class LlmError extends Error {
  override readonly name = "LlmError";
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly details: {
      status?: number;
      retryAfterMs?: number;
      providerMessage?: string;
      /** The provider's own error code/type (e.g. "context_length_exceeded", "overloaded_error"). */
      code?: string;
      cause?: unknown;
    } = {},
  ) {
    super(message);
  }
  /** Worth retrying the same request after a pause. */
  get retryable(): boolean {
    return this.kind === "transient" || this.kind === "rate-limit";
  }
}

/** One protocol's translation between GenerateOptions/StreamChunk and its wire format. */
export interface LlmAdapter {
  readonly protocol: Protocol;
  stream(
    options: GenerateOptions,
    profile: ProviderProfile,
    capabilities: ModelCapabilities,
  ): AsyncIterable<StreamChunk>;
  /** Values the adapter fills in when the caller left them out (e.g. Anthropic's required max_tokens). */
  defaults?(
    options: GenerateOptions,
    profile: ProviderProfile,
    capabilities: ModelCapabilities,
  ): Partial<GenerateOptions>;
}

/** One call bound to an adapter, a profile snapshot, capabilities and the adapter's defaults. */
export interface PreparedCall {
  readonly provider: string;
  readonly model: string;
  readonly protocol: Protocol;
  /** `replayState.adapter` this call produces and accepts (protocol + profile id). */
  readonly adapterId: string;
  readonly profile: Readonly<ProviderProfile>;
  readonly capabilities: Readonly<ModelCapabilities>;
  /** The options with defaults applied (e.g. maxTokens), as they will be sent. */
  readonly options: Readonly<GenerateOptions>;
  /** Streams with the bound options; `overrides` may change anything except provider/model. */
  stream(overrides?: Partial<Omit<GenerateOptions, "provider" | "model">>): AsyncIterable<StreamChunk>;
}

/** What the agent loop needs from the LLM layer. */
export interface LlmClient {
  stream(options: GenerateOptions): AsyncIterable<StreamChunk>;
  capabilities(provider: string, model: string): Promise<ModelCapabilities>;
}
