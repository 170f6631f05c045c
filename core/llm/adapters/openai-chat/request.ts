import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import type { GenerateOptions, Message } from "../../../protocol";
import { argumentsJson } from "../../tool-arguments";
import type { ChatCompat, ModelCapabilities } from "../../types";
import { IMAGE_OMITTED, dataURL, fileReference, plainText, splitSystem, toolResultText } from "../shared";

/** Chat Completions body. Loose extras (e.g. `reasoning_content`) are fields some servers define. */
export type ChatRequest = ChatCompletionCreateParamsStreaming & Record<string, unknown>;

export interface ChatRequestContext {
  compat: ChatCompat;
  capabilities: ModelCapabilities;
  /** Reasoning models on api.openai.com reject `temperature`. */
  dropTemperature: boolean;
}

export function buildChatRequest(options: GenerateOptions, ctx: ChatRequestContext): ChatRequest {
  const { compat } = ctx;
  const { system, messages } = splitSystem(options);
  const wire: ChatCompletionMessageParam[] = [];
  if (system) wire.push({ role: compat.systemRole, content: system });
  const user = new UserParts(ctx);
  for (const message of messages) {
    if (message.role === "user") {
      appendUser(wire, user, message);
      continue;
    }
    user.flush(wire); // pending user content goes before the next non-user message
    if (message.role === "assistant") appendAssistant(wire, message, ctx);
    else {
      const text = plainText(message.content);
      if (text) wire.push({ role: compat.systemRole, content: text });
    }
  }
  user.flush(wire);

  const body: ChatRequest = { model: options.model, messages: wire, stream: true };
  if (compat.streamUsage) body.stream_options = { include_usage: true };
  if (options.tools?.length) {
    body.tools = options.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  if (options.maxTokens !== undefined) body[compat.maxTokensField] = options.maxTokens;
  if (options.temperature !== undefined && !ctx.dropTemperature) body.temperature = options.temperature;
  if (options.stop?.length) body.stop = options.stop;
  if (options.reasoningEffort && compat.reasoningEffort) body.reasoning_effort = options.reasoningEffort;
  return body;
}

/**
 * User content waiting to be sent as one user message. It is held back while tool
 * results are still being emitted, because every `role: "tool"` message must directly
 * follow the assistant message that made the calls.
 */
class UserParts {
  private parts: ChatCompletionContentPart[] = [];
  private hasImage = false;

  constructor(private readonly ctx: ChatRequestContext) {}

  text(text: string): void {
    this.parts.push({ type: "text", text });
  }

  image(block: { mediaType: string; data: string }): void {
    if (!this.ctx.capabilities.images) return this.text(IMAGE_OMITTED);
    this.parts.push({ type: "image_url", image_url: { url: dataURL(block) } });
    this.hasImage = true;
  }

  flush(wire: ChatCompletionMessageParam[]): void {
    if (this.parts.length === 0) return;
    // Many compatible servers (DeepSeek among them) accept only string content without images.
    const content = this.hasImage ? this.parts : this.parts.map((p) => (p.type === "text" ? p.text : "")).join("\n");
    wire.push({ role: "user", content });
    this.parts = [];
    this.hasImage = false;
  }
}

/**
 * Tool results become `role: "tool"` messages (text only); images a tool returned and
 * the message's own content follow as one user message once the tool messages are out.
 */
function appendUser(wire: ChatCompletionMessageParam[], user: UserParts, message: Message): void {
  for (const block of message.content) {
    switch (block.type) {
      case "tool-result": {
        const text = toolResultText(block);
        wire.push({ role: "tool", tool_call_id: block.toolCallId, content: block.isError && !text ? "error" : text });
        const images = block.content.filter((p) => p.type === "image");
        if (images.length) {
          user.text(`Images returned by ${block.toolName} (${block.toolCallId}):`);
          for (const img of images) user.image(img);
        }
        break;
      }
      case "text":
        user.text(block.text);
        break;
      case "image":
        user.image(block);
        break;
      case "file":
        user.text(fileReference(block));
        break;
      default:
        break; // reasoning / tool-call blocks have no user-side wire form
    }
  }
  // A human message ends the tool run: its content must not wait behind later tool results.
  if (!message.content.every((b) => b.type === "tool-result")) user.flush(wire);
}

function appendAssistant(wire: ChatCompletionMessageParam[], message: Message, ctx: ChatRequestContext): void {
  let text = "";
  let reasoning = "";
  const toolCalls: ChatCompletionMessageToolCall[] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "reasoning" && !block.redacted) reasoning += block.text;
    else if (block.type === "tool-call")
      toolCalls.push({
        id: block.id,
        type: "function",
        function: { name: block.name, arguments: argumentsJson(block) },
      });
  }
  if (!text && toolCalls.length === 0) return; // nothing the API would accept
  const out: ChatCompletionMessageParam & Record<string, unknown> = { role: "assistant", content: text || null };
  if (toolCalls.length) out.tool_calls = toolCalls;
  const echo = ctx.compat.echoReasoning;
  if (reasoning && (echo === "always" || (echo === "with-tool-calls" && toolCalls.length > 0))) {
    out[ctx.compat.reasoningField ?? "reasoning_content"] = reasoning;
  }
  wire.push(out);
}
