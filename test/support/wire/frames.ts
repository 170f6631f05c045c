import { anthropic } from "./anthropic";
import { openaiChat } from "./openai-chat";
import { openaiResponses } from "./openai-responses";
import type { WireScript } from "./script";

/** The SSE frames of `script` in the wire format of `protocol`. */
export function frames(
  protocol: "openai-chat" | "openai-responses" | "anthropic-messages",
  script: WireScript,
): string[] {
  if (protocol === "openai-chat") return openaiChat(script);
  if (protocol === "openai-responses") return openaiResponses(script);
  return anthropic(script);
}
