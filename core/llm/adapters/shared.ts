import type { ContentBlock, GenerateOptions, Message, ToolResultBlock } from "../../protocol";

/** `data:` URL of a base64 image block. */
export function dataURL(block: { mediaType: string; data: string }): string {
  return `data:${block.mediaType};base64,${block.data}`;
}

/** Text for a content block that has no wire form of its own (file references). */
export function fileReference(block: Extract<ContentBlock, { type: "file" }>): string {
  return `[file: ${block.title ? `${block.title} ` : ""}${block.uri}]`;
}

/** The text parts of a tool result, joined; images are handled by each adapter. */
export function toolResultText(block: ToolResultBlock): string {
  let text = "";
  for (const part of block.content) if (part.type === "text") text += (text ? "\n" : "") + part.text;
  return text;
}

/** Text of a message's text blocks (used for system-role messages). */
export function plainText(content: readonly ContentBlock[]): string {
  return content
    .filter((b): b is Extract<ContentBlock, { type: "text" }> => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

/**
 * The system prompt and the conversation: system-role messages before the first
 * non-system message fold into the system prompt; later ones stay where they are.
 */
export function splitSystem(options: GenerateOptions): { system: string | undefined; messages: Message[] } {
  const parts: string[] = options.system ? [options.system] : [];
  let i = 0;
  for (; i < options.messages.length && options.messages[i]!.role === "system"; i++) {
    const text = plainText(options.messages[i]!.content);
    if (text) parts.push(text);
  }
  return { system: parts.length ? parts.join("\n\n") : undefined, messages: options.messages.slice(i) };
}

export const IMAGE_OMITTED = "[image omitted: this model does not accept images]";
