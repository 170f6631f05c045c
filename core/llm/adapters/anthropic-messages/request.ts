import type {
  Base64ImageSource,
  ContentBlockParam,
  ImageBlockParam,
  MessageCreateParamsStreaming,
  MessageParam,
  TextBlockParam,
} from "@anthropic-ai/sdk/resources/messages";
import type { GenerateOptions, ImageBlock, Message, ReasoningEffort } from "../../../protocol";
import { replayData, textHash } from "../../replay";
import type { ModelCapabilities } from "../../types";
import { IMAGE_OMITTED, fileReference, plainText, splitSystem } from "../shared";
import { ANTHROPIC_REPLAY_VERSION, type AnthropicReplayV1 } from "./replay";

export interface AnthropicRequestContext {
  adapterId: string;
  capabilities: ModelCapabilities;
}

/** Thinking budget per effort (tokens); must stay below max_tokens. */
const THINKING_BUDGET: Record<ReasoningEffort, number> = { minimal: 1024, low: 4096, medium: 10_000, high: 32_000 };

/** The API requires max_tokens; without one from the caller use the model's limit, capped. */
export function defaultMaxTokens(capabilities: ModelCapabilities): number {
  return Math.min(capabilities.maxOutputTokens ?? 8192, 32_000);
}

type ImageMedia = Base64ImageSource["media_type"]; // jpeg/png/gif/webp

export function buildAnthropicRequest(
  options: GenerateOptions,
  ctx: AnthropicRequestContext,
): MessageCreateParamsStreaming {
  const { system, messages } = splitSystem(options);
  const wire: MessageParam[] = [];
  for (const message of messages) appendMessage(wire, message, options.model, ctx);
  for (const m of wire) if (m.role === "user") toolResultsFirst(m);
  markCacheBreakpoint(wire);

  const maxTokens = options.maxTokens ?? defaultMaxTokens(ctx.capabilities);
  const body: MessageCreateParamsStreaming = {
    model: options.model,
    max_tokens: maxTokens,
    messages: wire,
    stream: true,
  };
  // Cache breakpoints on the system prompt and the newest message: the prefix is reused across steps.
  if (system) body.system = [{ type: "text", text: system, cache_control: { type: "ephemeral" } }];
  if (options.tools?.length) {
    body.tools = options.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: { type: "object", ...t.parameters } as { type: "object"; [k: string]: unknown },
    }));
  }
  if (options.stop?.length) body.stop_sequences = options.stop;
  let thinking = false;
  if (ctx.capabilities.reasoning && options.reasoningEffort) {
    const budget = Math.min(THINKING_BUDGET[options.reasoningEffort], maxTokens - 1024);
    if (budget >= 1024) {
      body.thinking = { type: "enabled", budget_tokens: budget };
      thinking = true;
    }
  }
  // Extended thinking accepts no temperature other than the default. The SDK's types no
  // longer list `temperature`, but the Messages API and compatible servers still take it.
  if (options.temperature !== undefined && !thinking) {
    (body as MessageCreateParamsStreaming & { temperature?: number }).temperature = Math.min(options.temperature, 1);
  }
  return body;
}

/** Consecutive messages of one role merge: the API wants alternation, and all tool results of a step in one turn. */
function push(wire: MessageParam[], role: "user" | "assistant", content: ContentBlockParam[]): void {
  if (content.length === 0) return;
  const last = wire[wire.length - 1];
  if (last && last.role === role) (last.content as ContentBlockParam[]).push(...content);
  else wire.push({ role, content });
}

function appendMessage(wire: MessageParam[], message: Message, model: string, ctx: AnthropicRequestContext): void {
  if (message.role === "assistant") return push(wire, "assistant", assistantContent(message, model, ctx));
  if (message.role === "system") {
    // No system role mid-conversation: keep it in place as marked user text.
    const text = plainText(message.content);
    if (text) push(wire, "user", [{ type: "text", text: `<system>\n${text}\n</system>` }]);
    return;
  }
  const content: ContentBlockParam[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "tool-result": {
        const parts: Array<TextBlockParam | ImageBlockParam> = [];
        for (const part of block.content) {
          if (part.type === "text") {
            if (part.text) parts.push({ type: "text", text: part.text });
          } else parts.push(image(part, ctx));
        }
        content.push({
          type: "tool_result",
          tool_use_id: block.toolCallId,
          ...(parts.length ? { content: parts } : {}),
          ...(block.isError ? { is_error: true } : {}),
        });
        break;
      }
      case "text":
        if (block.text) content.push({ type: "text", text: block.text });
        break;
      case "image":
        content.push(image(block, ctx));
        break;
      case "file":
        content.push({ type: "text", text: fileReference(block) });
        break;
      default:
        break;
    }
  }
  push(wire, "user", content);
}

function image(block: ImageBlock, ctx: AnthropicRequestContext): ImageBlockParam | TextBlockParam {
  if (!ctx.capabilities.images) return { type: "text", text: IMAGE_OMITTED };
  return { type: "image", source: { type: "base64", media_type: block.mediaType as ImageMedia, data: block.data } };
}

/**
 * Thinking blocks are only sent back with this adapter's signature for the same model
 * and unchanged text; without one they are left out (the API rejects unsigned thinking).
 */
function assistantContent(message: Message, model: string, ctx: AnthropicRequestContext): ContentBlockParam[] {
  const replay = replayData<AnthropicReplayV1>(message, ctx.adapterId, ANTHROPIC_REPLAY_VERSION);
  const usable = replay && replay.model === model ? replay.reasoning : [];
  let ordinal = 0;
  const content: ContentBlockParam[] = [];
  for (const block of message.content) {
    switch (block.type) {
      case "reasoning": {
        const entry = usable[ordinal++];
        if (!entry || entry.hash !== textHash(block.text)) break;
        if (entry.redacted !== undefined) content.push({ type: "redacted_thinking", data: entry.redacted });
        else if (entry.signature) content.push({ type: "thinking", thinking: block.text, signature: entry.signature });
        break;
      }
      case "text":
        if (block.text) content.push({ type: "text", text: block.text });
        break;
      case "tool-call":
        content.push({ type: "tool_use", id: block.id, name: block.name, input: block.arguments });
        break;
      default:
        break;
    }
  }
  return content;
}

function toolResultsFirst(message: MessageParam): void {
  const content = message.content as ContentBlockParam[];
  const results = content.filter((b) => b.type === "tool_result");
  if (results.length === 0 || results.length === content.length) return;
  message.content = [...results, ...content.filter((b) => b.type !== "tool_result")];
}

function markCacheBreakpoint(wire: MessageParam[]): void {
  const last = wire[wire.length - 1];
  if (!last || last.role !== "user") return;
  const content = last.content as ContentBlockParam[];
  const block = content[content.length - 1];
  if (block && (block.type === "text" || block.type === "image" || block.type === "tool_result")) {
    block.cache_control = { type: "ephemeral" };
  }
}
