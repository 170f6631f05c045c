import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { GenerateOptions, StreamChunk } from "../../../protocol";
import { chatCompat, serverKind } from "../../compat";
import type { LlmAdapter, ModelCapabilities, ProviderProfile } from "../../types";
import { openaiClient } from "../clients";
import { translateStream } from "../translate-stream";
import { hop } from "../../../util/hop-trace";
import { buildChatRequest, type ChatRequest } from "./request";
import { ChatTranslator } from "./translate";

export { buildChatRequest, ChatTranslator };

/** OpenAI Chat Completions and every compatible server (DeepSeek, Ollama, llama.cpp, vLLM, LM Studio…). */
export class OpenAIChatAdapter implements LlmAdapter {
  readonly protocol = "openai-chat" as const;

  constructor(private readonly fetchImpl?: typeof fetch) {}

  request(options: GenerateOptions, profile: ProviderProfile, capabilities: ModelCapabilities): ChatRequest {
    return buildChatRequest(options, {
      compat: chatCompat(profile, capabilities),
      capabilities,
      dropTemperature: capabilities.reasoning && serverKind(profile) === "openai",
    });
  }

  async *stream(
    options: GenerateOptions,
    profile: ProviderProfile,
    capabilities: ModelCapabilities,
  ): AsyncIterable<StreamChunk> {
    const client = await openaiClient(profile, this.fetchImpl);
    hop("llm client");
    const body = this.request(options, profile, capabilities);
    const wire = await client.chat.completions.create(body, options.signal ? { signal: options.signal } : {});
    hop("llm response");
    yield* translateStream(wire as AsyncIterable<ChatCompletionChunk>, new ChatTranslator(), options.signal);
  }
}
