import type {
  MessageDeltaUsage,
  RawMessageStreamEvent,
  Usage as WireUsage,
} from "@anthropic-ai/sdk/resources/messages";
import type { FinishReason, StreamChunk, Usage } from "../../../protocol";
import { textHash } from "../../replay";
import { finalToolCall } from "../../tool-arguments";
import { LlmError } from "../../types";
import { ANTHROPIC_REPLAY_VERSION, type AnthropicReplayV1 } from "./replay";

interface BlockState {
  kind: "text" | "thinking" | "redacted" | "tool";
  index: number;
  text: string;
  id?: string;
  name?: string;
  signature?: string;
  data?: string;
}

/**
 * Messages API stream events → neutral chunks. Thinking signatures and redacted
 * thinking data go into replayState (never into neutral blocks); usage counts cached
 * prompt tokens as input so `inputTokens` is the whole prompt.
 */
export class AnthropicTranslator {
  private nextIndex = 0;
  /** By the wire's content block index; unknown block kinds (server tools) are skipped. */
  private readonly blocks = new Map<number, BlockState>();
  private messageId: string | undefined;
  private readonly reasoning: AnthropicReplayV1["reasoning"] = [];
  private input = 0;
  private cacheRead = 0;
  private cacheWrite = 0;
  private output = 0;
  private sawUsage = false;
  private stopReason: string | null | undefined;
  private stopped = false;

  constructor(
    private readonly adapterId: string,
    private readonly model: string,
  ) {}

  translate(event: RawMessageStreamEvent, out: StreamChunk[]): void {
    switch (event.type) {
      case "message_start":
        this.messageId = event.message.id;
        this.addUsage(event.message.usage);
        return;
      case "content_block_start": {
        const block = event.content_block;
        const index = this.nextIndex;
        switch (block.type) {
          case "text":
            this.open(event.index, { kind: "text", index, text: "" }, out, { type: "text" });
            if (block.text) this.text(this.blocks.get(event.index)!, block.text, out);
            return;
          case "thinking":
            this.open(
              event.index,
              { kind: "thinking", index, text: "", signature: block.signature || undefined },
              out,
              {
                type: "reasoning",
              },
            );
            if (block.thinking) this.text(this.blocks.get(event.index)!, block.thinking, out);
            return;
          case "redacted_thinking":
            this.open(event.index, { kind: "redacted", index, text: "", data: block.data }, out, { type: "reasoning" });
            return;
          case "tool_use":
            this.open(event.index, { kind: "tool", index, text: "", id: block.id, name: block.name }, out, {
              type: "tool-call",
              id: block.id,
              name: block.name,
            });
            return;
          default:
            return;
        }
      }
      case "content_block_delta": {
        const state = this.blocks.get(event.index);
        if (!state) return;
        const delta = event.delta;
        switch (delta.type) {
          case "text_delta":
            if (state.kind === "text") this.text(state, delta.text, out);
            return;
          case "thinking_delta":
            if (state.kind === "thinking") this.text(state, delta.thinking, out);
            return;
          case "signature_delta":
            state.signature = delta.signature;
            return;
          case "input_json_delta":
            if (state.kind === "tool" && delta.partial_json) {
              state.text += delta.partial_json;
              out.push({ type: "tool-call-delta", index: state.index, argumentsDelta: delta.partial_json });
            }
            return;
          default:
            return;
        }
      }
      case "content_block_stop": {
        const state = this.blocks.get(event.index);
        if (!state) return;
        this.blocks.delete(event.index);
        this.close(state, out);
        return;
      }
      case "message_delta":
        this.stopReason = event.delta.stop_reason;
        this.addUsage(event.usage);
        return;
      case "message_stop":
        this.stopped = true;
        return;
    }
  }

  end(out: StreamChunk[]): void {
    if (!this.stopped) {
      throw new LlmError("transient", "stream ended before the response completed", { code: "incomplete-stream" });
    }
    for (const state of this.blocks.values()) this.close(state, out);
    this.blocks.clear();
    if (this.sawUsage) {
      const inputTokens = this.input + this.cacheRead + this.cacheWrite;
      const usage: Usage = { inputTokens, outputTokens: this.output, totalTokens: inputTokens + this.output };
      if (this.cacheRead) usage.cacheReadTokens = this.cacheRead;
      if (this.cacheWrite) usage.cacheWriteTokens = this.cacheWrite;
      out.push({ type: "usage", usage });
    }
    const data: AnthropicReplayV1 = { model: this.model, reasoning: this.reasoning };
    if (this.messageId) data.messageId = this.messageId;
    out.push({
      type: "finish",
      reason: mapStop(this.stopReason),
      replayState: { adapter: this.adapterId, version: ANTHROPIC_REPLAY_VERSION, data },
    });
  }

  private open(
    wireIndex: number,
    state: BlockState,
    out: StreamChunk[],
    block: Extract<StreamChunk, { type: "block-start" }>["block"],
  ): void {
    this.nextIndex++;
    this.blocks.set(wireIndex, state);
    out.push({ type: "block-start", index: state.index, block });
  }

  private text(state: BlockState, text: string, out: StreamChunk[]): void {
    if (!text) return;
    state.text += text;
    out.push(
      state.kind === "text"
        ? { type: "text-delta", index: state.index, text }
        : { type: "reasoning-delta", index: state.index, text },
    );
  }

  private close(state: BlockState, out: StreamChunk[]): void {
    switch (state.kind) {
      case "text":
        out.push({ type: "block-end", index: state.index });
        return;
      case "thinking":
        this.reasoning.push({ hash: textHash(state.text), ...(state.signature ? { signature: state.signature } : {}) });
        out.push({ type: "block-end", index: state.index });
        return;
      case "redacted":
        this.reasoning.push({ hash: textHash(""), redacted: state.data ?? "" });
        out.push({ type: "block-end", index: state.index, block: { type: "reasoning", text: "", redacted: true } });
        return;
      case "tool":
        out.push({ type: "block-end", index: state.index, block: finalToolCall(state.id!, state.name!, state.text) });
        return;
    }
  }

  /** message_start carries the prompt side; message_delta the cumulative output (and, lately, updated input). */
  private addUsage(usage: WireUsage | MessageDeltaUsage | undefined): void {
    if (!usage) return;
    this.sawUsage = true;
    if (typeof usage.input_tokens === "number") this.input = usage.input_tokens;
    if (typeof usage.cache_read_input_tokens === "number") this.cacheRead = usage.cache_read_input_tokens;
    if (typeof usage.cache_creation_input_tokens === "number") this.cacheWrite = usage.cache_creation_input_tokens;
    if (typeof usage.output_tokens === "number") this.output = usage.output_tokens;
  }
}

function mapStop(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "tool_use":
      return "tool-calls";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}
