import { argsText, pieces, sseData, toolSchedule, type WireScript } from "./script";

/** Chat Completions SSE frames, as api.openai.com (and DeepSeek for reasoning) send them. */
export function openaiChat(script: WireScript): string[] {
  const id = script.id ?? "chatcmpl-test";
  const model = script.model ?? "gpt-4o";
  const size = script.chunkSize ?? 4;
  const envelope = (rest: object) =>
    sseData({
      id,
      object: "chat.completion.chunk",
      created: 1_700_000_000,
      model,
      system_fingerprint: "fp_test",
      ...rest,
    });
  const chunk = (delta: object, finish: string | null = null) =>
    envelope({ choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const frames = [chunk({ role: "assistant", content: "" })];
  const field = script.reasoningField ?? "reasoning_content";
  for (const p of pieces(script.reasoning ?? "", size)) frames.push(chunk({ [field]: p }));
  for (const p of pieces(script.text ?? "", size)) frames.push(chunk({ content: p }));
  const calls = script.toolCalls ?? [];
  const argPieces = calls.map((c) => pieces(argsText(c.arguments), size));
  for (const [c, i] of toolSchedule(argPieces, script.interleave ?? true)) {
    const call = calls[c]!;
    frames.push(
      chunk({
        tool_calls: [
          i === -1
            ? { index: c, id: call.id, type: "function", function: { name: call.name, arguments: "" } }
            : { index: c, function: { arguments: argPieces[c]![i] } },
        ],
      }),
    );
  }
  frames.push(chunk({}, script.finish ?? (calls.length ? "tool_calls" : "stop")));
  if (script.usage) {
    const u = script.usage;
    // With stream_options.include_usage the usage arrives alone, in a final chunk with no choices.
    frames.push(
      envelope({
        choices: [],
        usage: {
          prompt_tokens: u.input,
          completion_tokens: u.output,
          total_tokens: u.input + u.output,
          prompt_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
          completion_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
        },
      }),
    );
  }
  frames.push("data: [DONE]\n\n");
  return frames;
}
