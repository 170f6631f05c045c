import type { ContentBlock, SessionEvent } from "../protocol";
import type { SearchHitKind, SearchHitPart } from "../protocol/search";

/** One searchable text of an event: a hit names its kind and part. */
export interface Field {
  kind: SearchHitKind;
  part: SearchHitPart;
  text: string;
}

const asBlocks = (value: unknown): ContentBlock[] => (Array.isArray(value) ? (value as ContentBlock[]) : []);

/** A tool call as it is searched: its name, then its arguments as JSON. */
const toolCallText = (name: unknown, args: unknown) =>
  `${typeof name === "string" ? name : ""} ${JSON.stringify(args ?? {})}`;

/**
 * The searchable fields of an assistant message's (or a draft's) blocks: text, then
 * reasoning when asked for, then each tool call.
 */
export function blockFields(blocks: readonly ContentBlock[], reasoning: boolean, out: Field[]): void {
  let text = "";
  let thought = "";
  for (const block of blocks) {
    if (block?.type === "text" && typeof block.text === "string") text += (text ? "\n" : "") + block.text;
    else if (reasoning && block?.type === "reasoning" && typeof block.text === "string")
      thought += (thought ? "\n" : "") + block.text;
  }
  if (text) out.push({ kind: "assistant", part: "text", text });
  if (thought) out.push({ kind: "assistant", part: "reasoning", text: thought });
  for (const block of blocks)
    if (block?.type === "tool-call")
      out.push({ kind: "tool", part: "tool-call", text: toolCallText(block.name, block.arguments) });
}

/**
 * The fields search covers (issue 23): user and assistant text, tool-call arguments and
 * tool results, titles, and reasoning when asked. Everything else (turn and step marks,
 * request headers, `tool/call`, which repeats the assistant's tool-call block) is not
 * conversation. Stored events are untrusted: a field of the wrong shape is skipped.
 */
export function eventFields(event: SessionEvent, reasoning: boolean): Field[] {
  const data = (event.data ?? {}) as Record<string, unknown>;
  const out: Field[] = [];
  switch (event.type) {
    case "user/message": {
      const text = asBlocks(data.content)
        .filter((b) => b?.type === "text" && typeof b.text === "string")
        .map((b) => (b as { text: string }).text)
        .join("\n");
      if (text) out.push({ kind: "user", part: "text", text });
      break;
    }
    case "assistant/message":
      blockFields(asBlocks(data.content), reasoning, out);
      break;
    case "tool/result": {
      const text = asBlocks(data.content)
        .filter((b) => b?.type === "text" && typeof b.text === "string")
        .map((b) => (b as { text: string }).text)
        .join("\n");
      if (text) out.push({ kind: "tool", part: "tool-result", text });
      break;
    }
    case "session/title":
      if (typeof data.title === "string" && data.title) out.push({ kind: "title", part: "title", text: data.title });
      break;
  }
  return out;
}
