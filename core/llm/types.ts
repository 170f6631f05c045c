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
}

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
}

export type LlmErrorKind =
  | "context-length"
  | "rate-limit"
  | "auth"
  | "bad-request"
  | "transient"
  | "aborted"
  | "unknown";

/** A provider failure normalised to a neutral kind; the provider's message is kept. */
export class LlmError extends Error {
  override readonly name = "LlmError";
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
    readonly details: { status?: number; retryAfterMs?: number; providerMessage?: string; cause?: unknown } = {},
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
  stream(options: GenerateOptions, profile: ProviderProfile, capabilities: ModelCapabilities): AsyncIterable<StreamChunk>;
}

/** What the agent loop needs from the LLM layer. */
export interface LlmClient {
  stream(options: GenerateOptions): AsyncIterable<StreamChunk>;
  capabilities(provider: string, model: string): Promise<ModelCapabilities>;
}
