import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { GenerateOptions, StreamChunk } from "../../../protocol";
import { abortedError } from "../../errors";
import { replayAdapterId } from "../../replay";
import type { LlmAdapter, ModelCapabilities, ProviderProfile } from "../../types";
import { anthropicClient } from "../clients";
import { buildAnthropicRequest, defaultMaxTokens } from "./request";
import { AnthropicTranslator } from "./translate";

export { buildAnthropicRequest, AnthropicTranslator };
export type { AnthropicReplayV1 } from "./replay";

/** Anthropic Messages: system, tool_use/tool_result, signed thinking, prompt-cache usage. */
export class AnthropicMessagesAdapter implements LlmAdapter {
  readonly protocol = "anthropic-messages" as const;

  constructor(private readonly fetchImpl?: typeof fetch) {}

  defaults(options: GenerateOptions, _profile: ProviderProfile, capabilities: ModelCapabilities): Partial<GenerateOptions> {
    return options.maxTokens === undefined ? { maxTokens: defaultMaxTokens(capabilities) } : {};
  }

  request(options: GenerateOptions, profile: ProviderProfile, capabilities: ModelCapabilities) {
    return buildAnthropicRequest(options, { adapterId: replayAdapterId(profile), capabilities });
  }

  async *stream(options: GenerateOptions, profile: ProviderProfile, capabilities: ModelCapabilities): AsyncIterable<StreamChunk> {
    const client = anthropicClient(profile, this.fetchImpl);
    const body = this.request(options, profile, capabilities);
    const wire = await client.messages.create(body, options.signal ? { signal: options.signal } : {});
    const translator = new AnthropicTranslator(replayAdapterId(profile), options.model);
    const out: StreamChunk[] = [];
    for await (const event of wire as AsyncIterable<RawMessageStreamEvent>) {
      translator.translate(event, out);
      for (const c of out) yield c;
      out.length = 0;
    }
    if (options.signal?.aborted) throw abortedError(options.signal.reason);
    translator.end(out);
    yield* out;
  }
}
