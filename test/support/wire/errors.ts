import type { ScriptedReply } from "../provider-server";
import { sseData, sseEvent } from "./script";

type Protocol = "openai-chat" | "openai-responses" | "anthropic-messages";

const OPENAI_BY_STATUS: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: null },
  503: { type: "server_error", code: null },
};

const ANTHROPIC_BY_STATUS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/**
 * An HTTP error reply with each provider's exact error body. `code` overrides the
 * OpenAI `code` (e.g. "context_length_exceeded") or the Anthropic error `type`.
 */
export function error(
  protocol: Protocol,
  status: number,
  message: string,
  headers?: Record<string, string>,
  code?: string,
): ScriptedReply {
  if (protocol === "anthropic-messages") {
    return {
      status,
      ...(headers ? { headers } : {}),
      json: {
        type: "error",
        error: { type: code ?? ANTHROPIC_BY_STATUS[status] ?? "api_error", message },
        request_id: "req_test",
      },
    };
  }
  const known = OPENAI_BY_STATUS[status] ?? {
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: null,
  };
  return {
    status,
    ...(headers ? { headers } : {}),
    json: {
      error: {
        message,
        type: known.type,
        param: code === "context_length_exceeded" ? "messages" : null,
        code: code ?? known.code,
      },
    },
  };
}

/** An error reported inside an already-started stream, framed as each provider does it. */
export function streamError(protocol: Protocol, code: string, message: string): string {
  switch (protocol) {
    case "anthropic-messages":
      return sseEvent("error", { type: "error", error: { type: code, message } });
    case "openai-responses":
      return sseEvent("error", { type: "error", code, message, param: null, sequence_number: 999 });
    case "openai-chat":
      return sseData({ error: { message, type: code, param: null, code } });
  }
}
