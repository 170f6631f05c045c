import type { GenerateOptions, StreamChunk, Usage } from "../../core/protocol";
import type { LlmClient, ModelCapabilities } from "../../core/llm/types";

export interface ScriptedTurn {
  text?: string;
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  usage?: Usage;
}

/**
 * An in-process model for benchmarks: replays neutral chunks exactly as an adapter
 * would emit them, so the loop's own cost can be measured without a provider.
 */
export class ScriptedLlm implements LlmClient {
  readonly requests: GenerateOptions[] = [];
  constructor(
    private readonly next: (request: GenerateOptions, index: number) => ScriptedTurn,
    private readonly caps: ModelCapabilities = { contextWindow: 200_000, reasoning: false, images: false },
    private readonly keepRequests = false,
  ) {}

  async capabilities(): Promise<ModelCapabilities> {
    return this.caps;
  }

  async *stream(request: GenerateOptions): AsyncIterable<StreamChunk> {
    const index = this.count++;
    if (this.keepRequests) this.requests.push(request);
    const turn = this.next(request, index);
    let block = 0;
    if (turn.text) {
      yield { type: "block-start", index: block, block: { type: "text" } };
      for (let i = 0; i < turn.text.length; i += 16)
        yield { type: "text-delta", index: block, text: turn.text.slice(i, i + 16) };
      yield { type: "block-end", index: block++ };
    }
    for (const call of turn.toolCalls ?? []) {
      yield { type: "block-start", index: block, block: { type: "tool-call", id: call.id, name: call.name } };
      yield { type: "tool-call-delta", index: block, argumentsDelta: JSON.stringify(call.arguments) };
      yield { type: "block-end", index: block++ };
    }
    if (turn.usage) yield { type: "usage", usage: turn.usage };
    yield { type: "finish", reason: turn.toolCalls?.length ? "tool-calls" : "stop" };
  }
  private count = 0;
}
