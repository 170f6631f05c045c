import type {
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItemList,
  ResponseInputItem,
  ResponseInputMessageContentList,
} from "openai/resources/responses/responses";
import type { GenerateOptions, ImageBlock, Message } from "../../../protocol";
import { replayData, textHash } from "../../replay";
import { argumentsJson } from "../../tool-arguments";
import type { ModelCapabilities } from "../../types";
import { IMAGE_OMITTED, dataURL, fileReference, plainText, splitSystem, toolResultText } from "../shared";
import { RESPONSES_REPLAY_VERSION, type ResponsesReplayV1 } from "./replay";

export interface ResponsesRequestContext {
  adapterId: string;
  capabilities: ModelCapabilities;
}

/**
 * Responses body. Stateless (`store: false`): the whole history is sent each call and
 * reasoning items are echoed with their `encrypted_content` from replayState. `stop` has
 * no Responses equivalent and is not sent.
 */
export function buildResponsesRequest(
  options: GenerateOptions,
  ctx: ResponsesRequestContext,
): ResponseCreateParamsStreaming {
  const { system, messages } = splitSystem(options);
  const input: ResponseInputItem[] = [];
  for (const message of messages) appendMessage(input, message, options.model, ctx);

  const body: ResponseCreateParamsStreaming = { model: options.model, input, stream: true, store: false };
  if (system) body.instructions = system;
  if (options.tools?.length) {
    body.tools = options.tools.map((t) => ({
      type: "function",
      name: t.name,
      description: t.description,
      parameters: t.parameters,
      strict: false,
    }));
  }
  if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens;
  // Reasoning models reject temperature.
  if (options.temperature !== undefined && !ctx.capabilities.reasoning) body.temperature = options.temperature;
  if (ctx.capabilities.reasoning) {
    body.reasoning = { summary: "auto", ...(options.reasoningEffort ? { effort: options.reasoningEffort } : {}) };
    body.include = ["reasoning.encrypted_content"];
  }
  return body;
}

function appendMessage(
  input: ResponseInputItem[],
  message: Message,
  model: string,
  ctx: ResponsesRequestContext,
): void {
  switch (message.role) {
    case "system": {
      const text = plainText(message.content);
      if (text) input.push({ role: "system", content: text });
      return;
    }
    case "user":
      return appendUser(input, message, ctx);
    case "assistant":
      return appendAssistant(input, message, model, ctx);
  }
}

function appendUser(input: ResponseInputItem[], message: Message, ctx: ResponsesRequestContext): void {
  const parts: ResponseInputMessageContentList = [];
  const image = (block: ImageBlock) =>
    ctx.capabilities.images
      ? ({ type: "input_image", image_url: dataURL(block), detail: "auto" } as const)
      : ({ type: "input_text", text: IMAGE_OMITTED } as const);
  for (const block of message.content) {
    switch (block.type) {
      case "tool-result": {
        const hasImage = block.content.some((p) => p.type === "image");
        let output: string | ResponseFunctionCallOutputItemList = toolResultText(block);
        if (hasImage) {
          output = block.content.map((p) =>
            p.type === "text" ? { type: "input_text" as const, text: p.text } : image(p),
          );
        }
        input.push({ type: "function_call_output", call_id: block.toolCallId, output });
        break;
      }
      case "text":
        parts.push({ type: "input_text", text: block.text });
        break;
      case "image":
        parts.push(image(block));
        break;
      case "file":
        parts.push({ type: "input_text", text: fileReference(block) });
        break;
      default:
        break;
    }
  }
  if (parts.length) input.push({ role: "user", content: parts });
}

/**
 * Assistant output in order. Reasoning is only echoable as the original item (id +
 * encrypted content) from this adapter's replayState for the same model and unchanged
 * text; otherwise it is left out — the API cannot take foreign reasoning.
 */
function appendAssistant(
  input: ResponseInputItem[],
  message: Message,
  model: string,
  ctx: ResponsesRequestContext,
): void {
  const replay = replayData<ResponsesReplayV1>(message, ctx.adapterId, RESPONSES_REPLAY_VERSION);
  const usable = replay && replay.model === model ? replay.reasoning : [];
  let reasoningOrdinal = 0;
  let text = "";
  const flushText = () => {
    if (text) input.push({ role: "assistant", content: text });
    text = "";
  };
  for (const block of message.content) {
    if (block.type === "reasoning") {
      const entry = usable[reasoningOrdinal++];
      if (entry && entry.hash === textHash(block.text)) {
        flushText();
        input.push({
          type: "reasoning",
          id: entry.id,
          summary: entry.summary,
          ...(entry.encrypted_content ? { encrypted_content: entry.encrypted_content } : {}),
        });
      }
    } else if (block.type === "text") text += block.text;
    else if (block.type === "tool-call") {
      flushText();
      input.push({ type: "function_call", call_id: block.id, name: block.name, arguments: argumentsJson(block) });
    }
  }
  flushText();
}
