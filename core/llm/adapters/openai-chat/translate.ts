import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { FinishReason, StreamChunk, Usage } from "../../../protocol";
import { finalToolCall } from "../../tool-arguments";
import { LlmError } from "../../types";

interface ToolState {
  id: string | undefined;
  name: string;
  args: string;
  /** Neutral block index once announced (needs a name). */
  index: number | undefined;
}

/** Chunk deltas as servers send them: DeepSeek/vLLM `reasoning_content`, Ollama/OpenRouter `reasoning`. */
type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };
type WireUsage = NonNullable<ChatCompletionChunk["usage"]> & { prompt_cache_hit_tokens?: number };

/**
 * Chat Completions chunks → neutral chunks. Text and reasoning are sequential blocks;
 * tool calls are keyed by their wire `index` so interleaved argument deltas of parallel
 * calls land in their own block. All blocks end at `finish_reason`; usage (which may
 * come in a later, choice-less chunk) and `finish` are emitted by `end()`.
 */
export class ChatTranslator {
  private nextIndex = 0;
  private open: { kind: "text" | "reasoning"; index: number } | undefined;
  private readonly tools = new Map<number, ToolState>();
  private readonly announced: ToolState[] = [];
  private finishReason: string | undefined;
  private usage: Usage | undefined;
  private closed = false;

  translate(chunk: ChatCompletionChunk, out: StreamChunk[]): void {
    if (chunk.usage) this.usage = mapUsage(chunk.usage as WireUsage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta as Delta | undefined;
    if (delta) {
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (reasoning) this.append("reasoning", reasoning, out);
      if (delta.content) this.append("text", delta.content, out);
      if (delta.tool_calls) for (const call of delta.tool_calls) this.toolDelta(call, out);
    }
    if (choice.finish_reason) {
      this.finishReason = choice.finish_reason;
      this.closeAll(out);
    }
  }

  /** After the wire stream ended: usage + finish, or an error if the response never finished. */
  end(out: StreamChunk[]): void {
    if (this.finishReason === undefined) {
      throw new LlmError("transient", "stream ended before the response completed", { code: "incomplete-stream" });
    }
    if (this.usage) out.push({ type: "usage", usage: this.usage });
    out.push({ type: "finish", reason: this.mapFinish(this.finishReason) });
  }

  private append(kind: "text" | "reasoning", text: string, out: StreamChunk[]): void {
    if (this.open?.kind !== kind) {
      this.closeOpen(out);
      const index = this.nextIndex++;
      this.open = { kind, index };
      out.push({ type: "block-start", index, block: { type: kind } });
    }
    out.push(
      kind === "text"
        ? { type: "text-delta", index: this.open.index, text }
        : { type: "reasoning-delta", index: this.open.index, text },
    );
  }

  private toolDelta(call: ChatCompletionChunk.Choice.Delta.ToolCall, out: StreamChunk[]): void {
    // Some servers omit `index`; fall back to the id, then to "a new call".
    let key: number | undefined = typeof call.index === "number" ? call.index : undefined;
    if (key === undefined && call.id) for (const [k, s] of this.tools) if (s.id === call.id) key = k;
    key ??= this.tools.size;
    let state = this.tools.get(key);
    if (!state) this.tools.set(key, (state = { id: undefined, name: "", args: "", index: undefined }));
    if (call.id && !state.id) state.id = call.id;
    if (call.function?.name && state.index === undefined) state.name = call.function.name;
    const piece = call.function?.arguments ?? "";
    if (state.index === undefined) {
      state.args += piece;
      if (state.name) this.announce(state, out);
    } else if (piece) {
      state.args += piece;
      out.push({ type: "tool-call-delta", index: state.index, argumentsDelta: piece });
    }
  }

  private announce(state: ToolState, out: StreamChunk[]): void {
    this.closeOpen(out);
    state.id ??= `call_${this.announced.length}`;
    state.index = this.nextIndex++;
    this.announced.push(state);
    out.push({ type: "block-start", index: state.index, block: { type: "tool-call", id: state.id, name: state.name } });
    if (state.args) out.push({ type: "tool-call-delta", index: state.index, argumentsDelta: state.args });
  }

  private closeOpen(out: StreamChunk[]): void {
    if (this.open) out.push({ type: "block-end", index: this.open.index });
    this.open = undefined;
  }

  private closeAll(out: StreamChunk[]): void {
    if (this.closed) return;
    this.closed = true;
    this.closeOpen(out);
    for (const state of this.tools.values())
      if (state.index === undefined) this.announce({ ...state, name: "unknown" }, out);
    for (const state of this.announced) {
      out.push({ type: "block-end", index: state.index!, block: finalToolCall(state.id!, state.name, state.args) });
    }
  }

  private mapFinish(reason: string): FinishReason {
    switch (reason) {
      case "tool_calls":
      case "function_call":
        return "tool-calls";
      case "stop":
        // Several local servers say "stop" after emitting tool calls.
        return this.announced.length ? "tool-calls" : "stop";
      case "length":
        return "length";
      case "content_filter":
        return "content-filter";
      default:
        return "other";
    }
  }
}

function mapUsage(usage: WireUsage): Usage {
  const out: Usage = {
    inputTokens: usage.prompt_tokens ?? 0,
    outputTokens: usage.completion_tokens ?? 0,
  };
  if (typeof usage.total_tokens === "number") out.totalTokens = usage.total_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens ?? usage.prompt_cache_hit_tokens;
  if (typeof cached === "number") out.cacheReadTokens = cached;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  if (typeof reasoning === "number") out.reasoningTokens = reasoning;
  return out;
}
