import type { AssistantMessageData, ToolCallBlock } from "../protocol";
import type { Session } from "../session";

// Anthropic's tool_use ids must match ^[a-zA-Z0-9_-]{1,64}$; a renamed id stays inside it.
const UNSAFE = /[^a-zA-Z0-9_-]/g;

/**
 * Keeps tool-call ids unique within a session. Local servers (llama.cpp, Ollama) emit
 * `call_0`, `call_1` … in every turn; a reused id is renamed on the assistant message so
 * the log, recovery and every later request pair each result with one call. The
 * provider's own id is kept on the block as `providerId`.
 */
export class ToolCallIds {
  private seen: Set<string> | undefined;

  constructor(private readonly session: Session) {}

  /** `message` with each reused call id renamed (the same object when none was reused). */
  unique(message: AssistantMessageData): AssistantMessageData {
    const seen = (this.seen ??= this.loaded());
    let renamed = false;
    const content = message.content.map((block) => {
      if (block.type !== "tool-call") return block;
      if (!seen.has(block.id)) {
        seen.add(block.id);
        return block;
      }
      renamed = true;
      const base = block.id.replace(UNSAFE, "_").slice(0, 48);
      let n = 2;
      while (seen.has(`${base}_${n}`)) n++;
      const id = `${base}_${n}`;
      seen.add(id);
      return { ...block, id, providerId: block.providerId ?? block.id } satisfies ToolCallBlock;
    });
    return renamed ? { ...message, content } : message;
  }

  /** Ids of the calls in the session's loaded events (closed segments are out of every request). */
  private loaded(): Set<string> {
    const ids = new Set<string>();
    for (const event of this.session.events()) {
      if (event.type !== "assistant/message") continue;
      for (const block of (event.data as AssistantMessageData).content)
        if (block.type === "tool-call") ids.add(block.id);
    }
    return ids;
  }
}
