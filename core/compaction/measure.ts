import type { ContentBlock, Message, SessionEvent, ToolResultPart, ToolSpec } from "../protocol";
import type { Session } from "../session";

/** Characters an image stands for when sizing (providers bill images by pixels, not bytes). */
const IMAGE_CHARS = 4000;

/** Characters content blocks contribute to a request (sizing only, never a trigger). */
export function blocksChars(blocks: readonly (ContentBlock | ToolResultPart)[]): number {
  let n = 0;
  for (const block of blocks) {
    if (block.type === "text" || block.type === "reasoning") n += block.text.length;
    else if (block.type === "tool-call") n += JSON.stringify(block.arguments).length + block.name.length;
    else if (block.type === "image") n += IMAGE_CHARS;
    else if (block.type === "tool-result") n += blocksChars(block.content);
  }
  return n;
}

/** Characters a Surface event contributes to the model context. */
export function eventChars(event: SessionEvent): number {
  return blocksChars((event.data as { content?: readonly ContentBlock[] }).content ?? []);
}

/** What one request sent, in characters: recorded on its `request/header`. */
export interface SentChars {
  system: number;
  tools: number;
  messages: number;
}

export const sentTotal = (chars: SentChars): number => chars.system + chars.tools + chars.messages;

/**
 * Counts the characters of the session's model context incrementally, the way
 * `deriveMessages()` projects it: an append counts only the new messages, a replace or a
 * closed prefix recounts. So measuring every request costs O(new messages).
 */
export class ContextChars {
  private generation = -1;
  private counted = 0;
  private total = 0;

  constructor(private readonly session: Session) {}

  /** Characters of `messages`, which must be the session's current `deriveMessages()`. */
  sent(system: string, tools: readonly ToolSpec[], messages: readonly Message[]): SentChars {
    const generation = this.session.surface.replaceGeneration;
    if (generation !== this.generation || messages.length < this.counted) {
      this.generation = generation;
      this.counted = 0;
      this.total = 0;
    }
    for (; this.counted < messages.length; this.counted++) this.total += blocksChars(messages[this.counted]!.content);
    return {
      system: system.length,
      tools: tools.length === 0 ? 0 : JSON.stringify(tools).length,
      messages: this.total,
    };
  }
}
