import { argsText, pieces, sseEvent, toolSchedule, type WireScript } from "./script";

/** Responses API SSE frames (`event:` names and fields as api.openai.com sends them). */
export function openaiResponses(script: WireScript): string[] {
  const id = script.id ?? "resp_test";
  const model = script.model ?? "gpt-5";
  const size = script.chunkSize ?? 4;
  let seq = 0;
  const frames: string[] = [];
  const emit = (type: string, fields: object) =>
    frames.push(sseEvent(type, { type, sequence_number: seq++, ...fields }));
  const response = (status: string, output: unknown[], extra: object = {}) => ({
    id,
    object: "response",
    created_at: 1_700_000_000,
    status,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage: null,
    error: null,
    incomplete_details: null,
    ...extra,
  });
  emit("response.created", { response: response("in_progress", []) });
  emit("response.in_progress", { response: response("in_progress", []) });
  const output: any[] = [];
  let index = 0;

  if (script.reasoning !== undefined) {
    const item_id = "rs_test";
    const output_index = index++;
    emit("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } });
    const parts = script.reasoning === "" ? [] : script.reasoning.split("\n\n");
    parts.forEach((part, summary_index) => {
      emit("response.reasoning_summary_part.added", {
        item_id,
        output_index,
        summary_index,
        part: { type: "summary_text", text: "" },
      });
      for (const delta of pieces(part, size))
        emit("response.reasoning_summary_text.delta", { item_id, output_index, summary_index, delta });
      emit("response.reasoning_summary_text.done", { item_id, output_index, summary_index, text: part });
      emit("response.reasoning_summary_part.done", {
        item_id,
        output_index,
        summary_index,
        part: { type: "summary_text", text: part },
      });
    });
    const item = {
      id: item_id,
      type: "reasoning",
      summary: parts.map((text) => ({ type: "summary_text", text })),
      encrypted_content: script.signature ?? "enc_test",
    };
    emit("response.output_item.done", { output_index, item });
    output.push(item);
  }

  if (script.text !== undefined) {
    const item_id = "msg_test";
    const output_index = index++;
    const base = { id: item_id, type: "message", role: "assistant" };
    emit("response.output_item.added", { output_index, item: { ...base, status: "in_progress", content: [] } });
    emit("response.content_part.added", {
      item_id,
      output_index,
      content_index: 0,
      part: { type: "output_text", text: "", annotations: [] },
    });
    for (const delta of pieces(script.text, size))
      emit("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
    emit("response.output_text.done", { item_id, output_index, content_index: 0, text: script.text, logprobs: [] });
    const part = { type: "output_text", text: script.text, annotations: [] };
    emit("response.content_part.done", { item_id, output_index, content_index: 0, part });
    const item = { ...base, status: "completed", content: [part] };
    emit("response.output_item.done", { output_index, item });
    output.push(item);
  }

  const calls = script.toolCalls ?? [];
  const argPieces = calls.map((c) => pieces(argsText(c.arguments), size));
  const first = index;
  const items = calls.map((c, i) => ({ id: `fc_test_${i}`, type: "function_call", call_id: c.id, name: c.name }));
  for (const [c, i] of toolSchedule(argPieces, script.interleave ?? true)) {
    const output_index = first + c;
    if (i === -1)
      emit("response.output_item.added", { output_index, item: { ...items[c], status: "in_progress", arguments: "" } });
    else
      emit("response.function_call_arguments.delta", { item_id: items[c]!.id, output_index, delta: argPieces[c]![i] });
  }
  calls.forEach((c, i) => {
    const output_index = first + i;
    const args = argsText(c.arguments);
    emit("response.function_call_arguments.done", { item_id: items[i]!.id, output_index, arguments: args });
    const item = { ...items[i], status: "completed", arguments: args };
    emit("response.output_item.done", { output_index, item });
    output.push(item);
  });

  const u = script.usage;
  const usage = u
    ? {
        input_tokens: u.input,
        input_tokens_details: { cached_tokens: u.cacheRead ?? 0 },
        output_tokens: u.output,
        output_tokens_details: { reasoning_tokens: u.reasoning ?? 0 },
        total_tokens: u.input + u.output,
      }
    : null;
  if (script.finish === "incomplete") {
    emit("response.incomplete", {
      response: response("incomplete", output, { usage, incomplete_details: { reason: "max_output_tokens" } }),
    });
  } else emit("response.completed", { response: response("completed", output, { usage }) });
  return frames;
}
