import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages";
import type { GenerateOptions, StreamChunk } from "../../../protocol";
import { replayAdapterId } from "../../replay";
import type { LlmAdapter, ModelCapabilities, ProviderProfile } from "../../types";
import { anthropicClient } from "../clients";
import { translateStream } from "../translate-stream";
import { buildAnthropicRequest, defaultMaxTokens } from "./request";
import { AnthropicTranslator } from "./translate";

export { buildAnthropicRequest, AnthropicTranslator };
export type { AnthropicReplayV1 } from "./replay";

/** Anthropic Messages: system, tool_use/tool_result, signed thinking, prompt-cache usage. */
export class AnthropicMessagesAdapter implements LlmAdapter {
  readonly protocol = "anthropic-messages" as const;

  constructor(private readonly fetchImpl?: typeof fetch) {}

  defaults(
    options: GenerateOptions,
    _profile: ProviderProfile,
    capabilities: ModelCapabilities,
  ): Partial<GenerateOptions> {
    return options.maxTokens === undefined ? { maxTokens: defaultMaxTokens(capabilities) } : {};
  }

  request(options: GenerateOptions, profile: ProviderProfile, capabilities: ModelCapabilities) {
    return buildAnthropicRequest(options, { adapterId: replayAdapterId(profile), capabilities });
  }

  async *stream(
    options: GenerateOptions,
    profile: ProviderProfile,
    capabilities: ModelCapabilities,
  ): AsyncIterable<StreamChunk> {
    const client = await anthropicClient(profile, this.fetchImpl);
    const body = this.request(options, profile, capabilities);
    const wire = await client.messages.create(body, options.signal ? { signal: options.signal } : {});
    yield* translateStream(
      wire as AsyncIterable<RawMessageStreamEvent>,
      new AnthropicTranslator(replayAdapterId(profile), options.model),
      options.signal,
    );
  }
}
