import type { ProviderHandler } from "./provider-server";
import * as wire from "./wire";

/**
 * The loopback provider's most common script: the first request answers with these tool calls, every later one with
 * `then` (a text reply by default), so a run makes the calls, gets their results and ends.
 */
export function toolCallsThen(
  toolCalls: NonNullable<wire.WireScript["toolCalls"]>,
  then: wire.WireScript = { text: "done" },
): ProviderHandler {
  let requests = 0;
  return () => ({ sse: wire.openaiChat(requests++ === 0 ? { toolCalls } : then) });
}
