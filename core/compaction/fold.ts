import type { AssistantMessageData, ContentBlock, SessionEvent, ToolResultData } from "../protocol";
import type { Session } from "../session";
import type { CompactionConfig } from "./config";
import { pruneText } from "./prune";

function foldToolResult(data: ToolResultData, config: CompactionConfig): ToolResultData | undefined {
  let changed = false;
  const content = data.content.map((part) => {
    if (part.type !== "text") return part;
    const text = pruneText(
      part.text,
      config.toolResultMaxCodePoints,
      config.toolResultHeadCodePoints,
      config.toolResultTailCodePoints,
      "tool output",
    );
    if (text === part.text) return part;
    changed = true;
    return { ...part, text };
  });
  return changed ? { ...data, content } : undefined;
}

function foldAssistant(data: AssistantMessageData, config: CompactionConfig): AssistantMessageData | undefined {
  let changed = false;
  const content = data.content.map((block): ContentBlock => {
    if (block.type !== "reasoning" || block.redacted) return block;
    const text = pruneText(
      block.text,
      config.reasoningMaxCodePoints,
      config.reasoningHeadCodePoints,
      config.reasoningTailCodePoints,
      "reasoning",
    );
    if (text === block.text) return block;
    changed = true;
    return { ...block, text };
  });
  if (!changed) return undefined;
  // The provider cannot verify a folded reasoning block, so its private replay state goes.
  const { replayState: _dropped, ...rest } = data;
  return { ...rest, content };
}

/** The folded copy of a Surface event's data, or undefined when it needs no folding. */
export function foldedData(event: SessionEvent, config: CompactionConfig): object | undefined {
  if (event.type === "tool/result") return foldToolResult(event.data as ToolResultData, config);
  if (event.type === "assistant/message") return foldAssistant(event.data as AssistantMessageData, config);
  return undefined;
}

/**
 * Folds oversized tool results and long reasoning on the Surface, each as a
 * single-node `replace` (so a tool call is never split from its results: ids and
 * pairing are kept). Returns the number of nodes folded.
 */
export function foldSurface(session: Session, config: CompactionConfig): number {
  let folded = 0;
  const nodes = [...session.surface.nodes];
  // The newest assistant message may be mid tool loop: providers (Anthropic thinking)
  // require its reasoning exactly as sent, so it is left alone.
  const newestAssistant = nodes.findLast((seq) => session.event(seq)?.type === "assistant/message");
  for (const seq of nodes) {
    const event = session.event(seq);
    if (!event || seq === newestAssistant) continue;
    const data = foldedData(event, config);
    if (!data) continue;
    session.append(event.type, data as never, { surface: { op: "replace", start: seq, end: seq }, sources: [seq] });
    folded++;
  }
  return folded;
}
