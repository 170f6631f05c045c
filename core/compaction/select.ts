import type { AssistantMessageData, SessionEvent, ToolResultData } from "../protocol";
import type { Session } from "../session";

/** Characters a Surface event contributes to the model context (sizing only). */
export function eventChars(event: SessionEvent): number {
  const data = event.data as AssistantMessageData | ToolResultData;
  let n = 0;
  for (const block of data.content ?? []) {
    if ("text" in block) n += block.text.length;
    else if (block.type === "tool-call") n += JSON.stringify(block.arguments).length + block.name.length;
    else if (block.type === "image") n += 4000;
    else if (block.type === "tool-result") for (const p of block.content) n += p.type === "text" ? p.text.length : 4000;
  }
  return n;
}

/** The earliest seq a Surface node stands for (a replacement stands for its sources). */
function originSeq(event: SessionEvent): number {
  return Math.min(event.seq, ...(event.sources ?? []));
}

function toolCallIds(event: SessionEvent): string[] {
  if (event.type !== "assistant/message") return [];
  return (event.data as AssistantMessageData).content.flatMap((b) => (b.type === "tool-call" ? [b.id] : []));
}

export interface PrefixSelection {
  /** Close events 1..throughSeq into a segment. */
  throughSeq: number;
  /** Surface nodes whose content the summary must cover. */
  closed: number[];
  /** Surface nodes kept verbatim. */
  kept: number[];
}

/**
 * Chooses the prefix of the Surface to summarise and close, keeping about
 * `keepChars` of the most recent messages verbatim. The cut never separates an
 * assistant tool call from its results, and the newest assistant message (possibly an
 * open tool transaction) is always kept. Undefined when nothing can be closed.
 */
export function selectPrefix(session: Session, keepChars: number): PrefixSelection | undefined {
  const nodes = session.surface.nodes;
  const events = nodes.map((seq) => session.event(seq)!);
  if (events.length < 2) return undefined;

  // Walk back from the end until the kept tail holds keepChars, but keep at least the
  // newest assistant message and what follows it.
  const lastAssistant = events.findLastIndex((e) => e.type === "assistant/message");
  let cut = events.length;
  let kept = 0;
  while (cut > 0 && (kept < keepChars || cut > lastAssistant)) {
    cut--;
    kept += eventChars(events[cut]!);
  }
  // Never start the kept tail on a tool result whose call would be closed.
  while (cut > 0 && events[cut]!.type === "tool/result") cut--;
  // A closed assistant message must not leave its results behind in the kept tail.
  const closedCalls = new Set(events.slice(0, cut).flatMap(toolCallIds));
  while (cut > 0 && events.slice(cut).some((e) => e.type === "tool/result" && closedCalls.has((e.data as ToolResultData).toolCallId))) {
    cut--;
    for (const id of toolCallIds(events[cut]!)) closedCalls.delete(id);
  }
  if (cut === 0) return undefined;

  const throughSeq = Math.min(...events.slice(cut).map(originSeq)) - 1;
  if (throughSeq <= session.baseSeq) return undefined;
  return { throughSeq, closed: nodes.slice(0, cut), kept: nodes.slice(cut) };
}
