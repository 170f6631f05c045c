import { argsText, pieces, sseEvent, toolSchedule, type WireScript } from "./script";

/** Messages API SSE frames (`event:` names and fields as api.anthropic.com sends them). */
export function anthropic(script: WireScript): string[] {
  const model = script.model ?? "claude-sonnet-4-5";
  const size = script.chunkSize ?? 4;
  const u = script.usage;
  const frames: string[] = [];
  const emit = (type: string, fields: object) => frames.push(sseEvent(type, { type, ...fields }));
  emit("message_start", {
    message: {
      id: script.id ?? "msg_test",
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: u?.input ?? 0,
        cache_creation_input_tokens: u?.cacheWrite ?? 0,
        cache_read_input_tokens: u?.cacheRead ?? 0,
        output_tokens: 1,
      },
    },
  });
  frames.push(sseEvent("ping", { type: "ping" }));
  let index = 0;
  if (script.reasoning !== undefined) {
    const i = index++;
    emit("content_block_start", { index: i, content_block: { type: "thinking", thinking: "", signature: "" } });
    for (const thinking of pieces(script.reasoning, size))
      emit("content_block_delta", { index: i, delta: { type: "thinking_delta", thinking } });
    emit("content_block_delta", {
      index: i,
      delta: { type: "signature_delta", signature: script.signature ?? "sig_test" },
    });
    emit("content_block_stop", { index: i });
  }
  if (script.text !== undefined) {
    const i = index++;
    emit("content_block_start", { index: i, content_block: { type: "text", text: "" } });
    for (const text of pieces(script.text, size))
      emit("content_block_delta", { index: i, delta: { type: "text_delta", text } });
    emit("content_block_stop", { index: i });
  }
  const calls = script.toolCalls ?? [];
  const argPieces = calls.map((c) => pieces(argsText(c.arguments), size));
  const first = index;
  const interleave = script.interleave ?? true;
  for (const [c, i] of toolSchedule(argPieces, interleave)) {
    const call = calls[c]!;
    if (i === -1) {
      // Sequential mode closes the previous call before the next one starts, as Anthropic does.
      if (!interleave && c > 0) emit("content_block_stop", { index: first + c - 1 });
      emit("content_block_start", {
        index: first + c,
        content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
      });
    } else
      emit("content_block_delta", {
        index: first + c,
        delta: { type: "input_json_delta", partial_json: argPieces[c]![i] },
      });
  }
  if (interleave) calls.forEach((_, c) => emit("content_block_stop", { index: first + c }));
  else if (calls.length) emit("content_block_stop", { index: first + calls.length - 1 });
  emit("message_delta", {
    delta: { stop_reason: script.finish ?? (calls.length ? "tool_use" : "end_turn"), stop_sequence: null },
    usage: { output_tokens: u?.output ?? 0 },
  });
  emit("message_stop", {});
  return frames;
}
