/**
 * Provider-neutral LLM layer (DESIGN §6).
 *
 * - `ModelClients` routes a call to the adapter of its profile's protocol, resolves model
 *   capabilities (built-in table → what a local server reports → profile override),
 *   binds adapter defaults (`prepareCall`), strips replayState made by another adapter,
 *   and turns every failure — before or during the stream — into an `LlmError`.
 * - `BlockAssembler` folds the chunks into content blocks; `blocks()` is a complete
 *   snapshot at any moment (the streaming draft).
 *
 * Decisions callers rely on:
 * - Tool-call arguments that are not a JSON object arrive as `arguments: {}` plus
 *   `invalidArguments: { raw, error }` on the block. Do not run such a call; answer it
 *   with an error tool result quoting `error`.
 * - `usage.inputTokens` is the whole prompt, cached tokens included (Anthropic's
 *   `input_tokens` excludes cache reads/writes; the adapter adds them back).
 * - `replayState.adapter` is `<protocol>:<profile id>`; data is versioned JSON. Reasoning
 *   is echoed only with a signature/encrypted item recorded for the same model and an
 *   unchanged text, else it is left out (never sent unsigned).
 * - Error kinds: context-length, rate-limit (retryAfterMs from retry-after(-ms)), auth,
 *   bad-request, transient (5xx, 408/409, overloaded, connection reset, timeout, a
 *   malformed SSE data line, a stream that ends before the provider's end marker),
 *   aborted. `details.providerMessage` keeps the provider's text.
 */
export { ModelClients } from "./model-clients";
export { BlockAssembler } from "./assembler";
export { ProviderProfileSchema } from "./profile";
export { type ProviderProfile, LlmError, type LlmClient } from "./types";
