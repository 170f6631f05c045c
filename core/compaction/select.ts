import type { AssistantMessageData, SessionEvent, ToolResultData } from "../protocol";
import type { Session } from "../session";
import { eventChars } from "./measure";

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
  /**
   * Deep compaction inside a tool loop: the newest user message was closed with the steps
   * before the open tool transaction, so it is restated after it (a checkpoint).
   */
  restate?: number;
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
  while (
    cut > 0 &&
    events.slice(cut).some((e) => e.type === "tool/result" && closedCalls.has((e.data as ToolResultData).toolCallId))
  ) {
    cut--;
    for (const id of toolCallIds(events[cut]!)) closedCalls.delete(id);
  }
  if (cut === 0) return undefined;

  const throughSeq = Math.min(...events.slice(cut).map(originSeq)) - 1;
  if (throughSeq <= session.baseSeq) return undefined;
  return { throughSeq, closed: nodes.slice(0, cut), kept: nodes.slice(cut) };
}

/**
 * Deep compaction (DESIGN §8, issue 10): keeps only the open tool transaction (the newest
 * assistant message with tool calls and what follows it) and the newest user message;
 * everything before is closed. When steps lie between that user message and the open
 * transaction, they are closed too and the user message is restated after it.
 * Undefined when nothing can be closed.
 */
export function selectDeep(session: Session): PrefixSelection | undefined {
  const nodes = session.surface.nodes;
  const events = nodes.map((seq) => session.event(seq)!);
  const lastAssistant = events.findLastIndex((e) => e.type === "assistant/message");
  const lastUser = events.findLastIndex((e) => e.type === "user/message");
  const open = lastAssistant >= 0 && toolCallIds(events[lastAssistant]!).length > 0 ? lastAssistant : -1;
  let cut: number;
  // No open transaction: keep from the newest user message (else the newest assistant).
  if (open < 0) cut = lastUser >= 0 ? lastUser : lastAssistant;
  // The user message directly before the open transaction stays where it is.
  else if (lastUser === open - 1) cut = lastUser;
  // A steer after it is kept with it; steps between the user message and it are closed
  // and the message restated.
  else cut = open;
  const restate = open >= 0 && lastUser >= 0 && lastUser < open - 1 ? nodes[lastUser] : undefined;
  if (cut <= 0) return undefined;
  const throughSeq = Math.min(...events.slice(cut).map(originSeq)) - 1;
  if (throughSeq <= session.baseSeq) return undefined;
  return {
    throughSeq,
    closed: nodes.slice(0, cut),
    kept: nodes.slice(cut),
    ...(restate !== undefined ? { restate } : {}),
  };
}
