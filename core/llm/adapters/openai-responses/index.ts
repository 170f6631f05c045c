import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import type { GenerateOptions, StreamChunk } from "../../../protocol";
import { replayAdapterId } from "../../replay";
import type { LlmAdapter, ModelCapabilities, ProviderProfile } from "../../types";
import { openaiClient } from "../clients";
import { translateStream } from "../translate-stream";
import { buildResponsesRequest } from "./request";
import { ResponsesTranslator } from "./translate";

export { buildResponsesRequest, ResponsesTranslator };
export type { ResponsesReplayV1 } from "./replay";

/** OpenAI Responses API, stateless: full input each call, reasoning echoed from replayState. */
export class OpenAIResponsesAdapter implements LlmAdapter {
  readonly protocol = "openai-responses" as const;

  constructor(private readonly fetchImpl?: typeof fetch) {}

  request(options: GenerateOptions, profile: ProviderProfile, capabilities: ModelCapabilities) {
    return buildResponsesRequest(options, { adapterId: replayAdapterId(profile), capabilities });
  }

  async *stream(
    options: GenerateOptions,
    profile: ProviderProfile,
    capabilities: ModelCapabilities,
  ): AsyncIterable<StreamChunk> {
    const client = await openaiClient(profile, this.fetchImpl);
    const body = this.request(options, profile, capabilities);
    const wire = await client.responses.create(body, options.signal ? { signal: options.signal } : {});
    yield* translateStream(
      wire as AsyncIterable<ResponseStreamEvent>,
      new ResponsesTranslator(replayAdapterId(profile), options.model),
      options.signal,
    );
  }
}
