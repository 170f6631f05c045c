import type { ResponseStreamEvent, ResponseUsage } from "openai/resources/responses/responses";
import type { FinishReason, StreamChunk, Usage } from "../../../protocol";
import { fromFacts } from "../../errors";
import { textHash } from "../../replay";
import { finalToolCall } from "../../tool-arguments";
import { LlmError } from "../../types";
import { RESPONSES_REPLAY_VERSION, type ResponsesReplayV1 } from "./replay";

interface ItemState {
  kind: "text" | "reasoning" | "tool-call";
  index: number | undefined;
  text: string;
  ended: boolean;
}

/**
 * Responses SSE events → neutral chunks, one neutral block per output item (text per
 * message item, reasoning per reasoning item — summary parts joined by a blank line —
 * and a tool call per function_call item), keyed by `output_index`.
 */
export class ResponsesTranslator {
  private nextIndex = 0;
  private readonly items = new Map<number, ItemState>();
  private responseId: string | undefined;
  private readonly reasoning: ResponsesReplayV1["reasoning"] = [];
  private usage: Usage | undefined;
  private reason: FinishReason | undefined;
  private sawToolCall = false;

  constructor(
    private readonly adapterId: string,
    private readonly model: string,
  ) {}

  translate(event: ResponseStreamEvent, out: StreamChunk[]): void {
    switch (event.type) {
      case "response.created":
      case "response.in_progress":
        this.responseId ??= event.response.id;
        return;
      case "response.output_item.added": {
        const item = event.item;
        if (item.type === "reasoning") this.start(event.output_index, "reasoning", out);
        else if (item.type === "function_call") {
          this.sawToolCall = true;
          const state = this.start(event.output_index, "tool-call", out, { id: item.call_id, name: item.name });
          if (item.arguments) this.delta(state, item.arguments, out);
        }
        return;
      }
      case "response.reasoning_summary_part.added":
        if (event.summary_index > 0) this.delta(this.item(event.output_index, "reasoning", out), "\n\n", out);
        return;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.delta(this.item(event.output_index, "reasoning", out), event.delta, out);
        return;
      case "response.output_text.delta":
      case "response.refusal.delta":
        this.delta(this.item(event.output_index, "text", out), event.delta, out);
        return;
      case "response.function_call_arguments.delta": {
        const state = this.items.get(event.output_index);
        if (state?.kind === "tool-call") this.delta(state, event.delta, out);
        return;
      }
      case "response.output_item.done":
        this.itemDone(event.output_index, event.item, out);
        return;
      case "response.completed":
      case "response.incomplete": {
        const response = event.response;
        this.responseId ??= response.id;
        if (response.usage) this.usage = mapUsage(response.usage);
        if (event.type === "response.completed") this.reason = this.sawToolCall ? "tool-calls" : "stop";
        else this.reason = response.incomplete_details?.reason === "content_filter" ? "content-filter" : "length";
        return;
      }
      case "response.failed": {
        const error = event.response.error;
        throw fromFacts({
          providerMessage: error?.message ?? "response failed",
          ...(error?.code ? { code: error.code } : {}),
        });
      }
      case "error":
        throw fromFacts({ providerMessage: event.message, ...(event.code ? { code: event.code } : {}) });
      default:
        return;
    }
  }

  end(out: StreamChunk[]): void {
    if (this.reason === undefined) {
      throw new LlmError("transient", "stream ended before the response completed", { code: "incomplete-stream" });
    }
    for (const state of this.items.values()) if (!state.ended && state.index !== undefined) this.close(state, out);
    if (this.usage) out.push({ type: "usage", usage: this.usage });
    const data: ResponsesReplayV1 = { model: this.model, reasoning: this.reasoning };
    if (this.responseId) data.responseId = this.responseId;
    out.push({
      type: "finish",
      reason: this.reason,
      replayState: { adapter: this.adapterId, version: RESPONSES_REPLAY_VERSION, data },
    });
  }

  private start(
    outputIndex: number,
    kind: ItemState["kind"],
    out: StreamChunk[],
    call?: { id: string; name: string },
  ): ItemState {
    const index = this.nextIndex++;
    const state: ItemState = { kind, index, text: "", ended: false };
    this.items.set(outputIndex, state);
    out.push({
      type: "block-start",
      index,
      block: call ? { type: "tool-call", id: call.id, name: call.name } : { type: kind as "text" },
    });
    return state;
  }

  /** The item's block, opened on first use (message items get a block only once text arrives). */
  private item(outputIndex: number, kind: "text" | "reasoning", out: StreamChunk[]): ItemState {
    const state = this.items.get(outputIndex);
    return state && state.kind === kind ? state : this.start(outputIndex, kind, out);
  }

  private delta(state: ItemState, text: string, out: StreamChunk[]): void {
    if (!text) return;
    state.text += text;
    const index = state.index!;
    if (state.kind === "text") out.push({ type: "text-delta", index, text });
    else if (state.kind === "reasoning") out.push({ type: "reasoning-delta", index, text });
    else out.push({ type: "tool-call-delta", index, argumentsDelta: text });
  }

  private itemDone(
    outputIndex: number,
    item: Extract<ResponseStreamEvent, { type: "response.output_item.done" }>["item"],
    out: StreamChunk[],
  ): void {
    switch (item.type) {
      case "message": {
        let state = this.items.get(outputIndex);
        if (!state) {
          // No deltas were streamed for this message: take its text from the item.
          const text = item.content.map((p) => (p.type === "output_text" ? p.text : p.refusal)).join("");
          if (!text) return;
          state = this.start(outputIndex, "text", out);
          this.delta(state, text, out);
        }
        this.close(state, out);
        return;
      }
      case "reasoning": {
        const state = this.item(outputIndex, "reasoning", out);
        const entry: ResponsesReplayV1["reasoning"][number] = {
          hash: textHash(state.text),
          id: item.id,
          summary: item.summary.map((s) => ({ type: "summary_text", text: s.text })),
        };
        if (item.encrypted_content) entry.encrypted_content = item.encrypted_content;
        this.reasoning.push(entry);
        this.close(state, out);
        return;
      }
      case "function_call": {
        const state = this.items.get(outputIndex);
        if (!state) return;
        state.ended = true;
        out.push({
          type: "block-end",
          index: state.index!,
          block: finalToolCall(item.call_id, item.name, item.arguments ?? state.text),
        });
        return;
      }
      default:
        return;
    }
  }

  private close(state: ItemState, out: StreamChunk[]): void {
    state.ended = true;
    out.push({ type: "block-end", index: state.index! });
  }
}

function mapUsage(usage: ResponseUsage): Usage {
  const out: Usage = {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    totalTokens: usage.total_tokens,
  };
  const cached = usage.input_tokens_details?.cached_tokens;
  if (typeof cached === "number") out.cacheReadTokens = cached;
  const reasoning = usage.output_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") out.reasoningTokens = reasoning;
  return out;
}
