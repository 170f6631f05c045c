import type * as Anthropic from "@anthropic-ai/sdk";
import type * as OpenAI from "openai";
import { loadedSdks } from "./adapters/sdks";

type SdkErrorClass = "APIConnectionError" | "APIConnectionTimeoutError" | "APIError" | "APIUserAbortError";
/** Whether `error` is one of the loaded SDKs' `name` errors (an SDK never loaded threw nothing). */
function sdkError<K extends SdkErrorClass>(
  error: unknown,
  name: K,
): error is InstanceType<(typeof OpenAI)[K]> | InstanceType<(typeof Anthropic)[K]> {
  const { openai, anthropic } = loadedSdks();
  return Boolean((openai && error instanceof openai[name]) || (anthropic && error instanceof anthropic[name]));
}
import { LlmError, type LlmErrorKind } from "./types";

/**
 * Provider messages that mean "the prompt does not fit", across OpenAI, Anthropic,
 * DeepSeek, vLLM, llama.cpp, Ollama, LM Studio and OpenRouter.
 */
const CONTEXT_LENGTH =
  /context[_ ]length|context window|maximum context|prompt is too long|too many tokens|exceeds? the (available )?context|context size|input is too long|reduce the length of the (messages|input)|tokens? exceed|maximum prompt length/i;

/** Provider error codes / types (body `code` or `type`) and what they mean. */
const CODE_KINDS: Record<string, LlmErrorKind> = {
  context_length_exceeded: "context-length",
  exceed_context_size_error: "context-length", // llama.cpp
  string_above_max_length: "context-length",
  request_too_large: "context-length", // Anthropic 413
  rate_limit_exceeded: "rate-limit",
  rate_limit_error: "rate-limit",
  insufficient_quota: "rate-limit",
  authentication_error: "auth",
  permission_error: "auth",
  invalid_api_key: "auth",
  overloaded_error: "transient",
  api_error: "transient",
  server_error: "transient",
  timeout_error: "transient",
  invalid_request_error: "bad-request",
  not_found_error: "bad-request",
  invalid_prompt: "bad-request",
};

interface ErrorFacts {
  status?: number;
  code?: string;
  providerMessage: string;
  headers?: Headers;
}

/**
 * Maps anything an adapter or SDK throws to an LlmError with a neutral kind, keeping the
 * provider's own message. An aborted signal always wins: the caller asked for it.
 */
export function normalizeError(error: unknown, signal?: AbortSignal): LlmError {
  if (signal?.aborted || isAbort(error)) return abortedError(error);
  if (error instanceof LlmError) return error;
  if (sdkError(error, "APIConnectionError")) {
    const timeout = sdkError(error, "APIConnectionTimeoutError");
    return new LlmError("transient", timeout ? "request timed out" : `connection failed: ${causeMessage(error)}`, {
      providerMessage: error.message,
      code: timeout ? "timeout" : "connection",
      cause: error,
    });
  }
  if (sdkError(error, "APIError")) {
    return fromFacts(apiErrorFacts(error), error);
  }
  if (error instanceof SyntaxError) {
    // The SDK could not parse an SSE data line: a corrupted/truncated frame. Retrying is sane.
    return new LlmError("transient", `malformed stream data: ${error.message}`, {
      providerMessage: error.message,
      code: "malformed-stream",
      cause: error,
    });
  }
  if (error instanceof Error && isNetworkError(error)) {
    return new LlmError("transient", `connection failed: ${causeMessage(error)}`, {
      providerMessage: (error as Error).message,
      code: "connection",
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError("unknown", message, { providerMessage: message, cause: error });
}

/** Classifies an HTTP error from facts; also used for errors reported inside a stream. */
export function fromFacts(facts: ErrorFacts, cause?: unknown): LlmError {
  const kind = classify(facts);
  const details: LlmError["details"] = { providerMessage: facts.providerMessage, cause };
  if (facts.status !== undefined) details.status = facts.status;
  if (facts.code) details.code = facts.code;
  if (kind === "rate-limit" || kind === "transient") {
    const retryAfterMs = facts.headers ? retryAfter(facts.headers) : undefined;
    if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
  }
  const prefix = facts.status !== undefined ? `${facts.status} ` : "";
  return new LlmError(kind, `${KIND_LABEL[kind]}: ${prefix}${facts.providerMessage}`.trim(), details);
}

const KIND_LABEL: Record<LlmErrorKind, string> = {
  "context-length": "context length exceeded",
  "rate-limit": "rate limited",
  auth: "authentication failed",
  "bad-request": "bad request",
  transient: "transient provider error",
  aborted: "aborted",
  unknown: "provider error",
};

function classify({ status, code, providerMessage }: ErrorFacts): LlmErrorKind {
  const byCode = code ? CODE_KINDS[code] : undefined;
  if (byCode === "context-length" || CONTEXT_LENGTH.test(providerMessage)) {
    // A 429 "tokens per minute" message must not read as a context overflow.
    if (status !== 429 && byCode !== "rate-limit") return "context-length";
  }
  if (status === 401 || status === 403) return "auth";
  if (status === 429) return "rate-limit";
  if (status === 413) return "context-length";
  if (status === 408 || status === 409 || (status !== undefined && status >= 500)) return "transient";
  if (byCode) return byCode;
  if (status !== undefined && status >= 400) return "bad-request";
  return status === undefined ? "transient" : "unknown"; // an error event mid-stream without a type
}

function apiErrorFacts(error: OpenAI.APIError | Anthropic.APIError): ErrorFacts {
  // OpenAI: error = { message, type, code }; Anthropic: error = { type: "error", error: { type, message } }.
  const body = (error.error ?? {}) as Record<string, unknown>;
  const inner = (typeof body.error === "object" && body.error !== null ? body.error : body) as Record<string, unknown>;
  const message =
    typeof inner.message === "string" ? inner.message : typeof body.message === "string" ? body.message : error.message;
  const code =
    (typeof inner.code === "string" && inner.code) ||
    (typeof inner.type === "string" && inner.type !== "error" && inner.type) ||
    undefined;
  const facts: ErrorFacts = { providerMessage: message };
  if (error.status !== undefined) facts.status = error.status;
  if (code) facts.code = code;
  if (error.headers) facts.headers = error.headers;
  return facts;
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date. */
export function retryAfter(headers: Headers): number | undefined {
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.has("retry-after-ms") && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (value.trim() !== "" && Number.isFinite(seconds) && seconds >= 0) return Math.round(seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function abortedError(cause?: unknown): LlmError {
  return new LlmError("aborted", "aborted", { cause });
}

function isAbort(error: unknown): boolean {
  return sdkError(error, "APIUserAbortError") || (error instanceof Error && error.name === "AbortError");
}

const NETWORK_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/** undici reports a cut body as TypeError("terminated") with a socket error as cause. */
function isNetworkError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof TypeError && /terminated|fetch failed/i.test(error.message)) return true;
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && NETWORK_CODES.has(code);
}

function causeMessage(error: Error): string {
  const cause = error.cause as { message?: string; code?: string } | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}
