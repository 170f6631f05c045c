import type { ContentRef, RestoreEndData, RestoreStartData, SessionEvent, ToolCheckpoint } from "../protocol";

/** One change Downcity made to a file: by a tool call, or by a restore. */
export interface TimelineChange {
  seq: number;
  before: ContentRef;
  after: ContentRef;
}

/**
 * Every file change the log records, by path, in log order: the checkpoints on tool
 * results, and the files of each ended restore (all of a finished one; of an interrupted
 * or failed one, those its end lists as restored). A restore with no end yet changed
 * nothing the log can vouch for.
 */
export function fileTimeline(events: readonly SessionEvent[]): Map<string, TimelineChange[]> {
  const ends = new Map<number, RestoreEndData>();
  for (const e of events)
    if (e.type === "restore/end") ends.set((e.data as RestoreEndData).startSeq, e.data as RestoreEndData);
  const out = new Map<string, TimelineChange[]>();
  const add = (path: string, change: TimelineChange) => {
    const list = out.get(path);
    if (list) list.push(change);
    else out.set(path, [change]);
  };
  for (const e of events) {
    if (e.type === "tool/result") {
      const checkpoint = (e.data as { checkpoint?: ToolCheckpoint }).checkpoint;
      for (const f of checkpoint?.files ?? []) add(f.path, { seq: e.seq, before: f.before, after: f.after });
    } else if (e.type === "restore/start") {
      const end = ends.get(e.seq);
      if (!end) continue;
      const restored = end.outcome === "done" ? undefined : new Set(end.restored ?? []);
      for (const f of (e.data as RestoreStartData).files)
        if (!restored || restored.has(f.path)) add(f.path, { seq: e.seq, before: f.before, after: f.after });
    }
  }
  return out;
}

/** A restore that has a start and no end (a crash during it), if any. */
export function unfinishedRestore(events: readonly SessionEvent[]): SessionEvent | undefined {
  const ended = new Set<number>();
  for (const e of events) if (e.type === "restore/end") ended.add((e.data as RestoreEndData).startSeq);
  return events.findLast((e) => e.type === "restore/start" && !ended.has(e.seq));
}

/**
 * Where "restore to here" on a message puts files and conversation: for a user message,
 * just before its turn began (as it was when the user sent it); for an assistant
 * message, after its step (its tool calls ran: their changes are kept).
 */
export function restorePointOf(events: readonly SessionEvent[], messageSeq: number): number {
  const at = events.findIndex((e) => e.seq === messageSeq);
  if (at < 0) throw new RangeError(`no event ${messageSeq} in the session's history`);
  const message = events[at]!;
  if (message.type === "user/message") {
    for (let i = at - 1; i >= 0; i--) {
      const type = events[i]!.type;
      if (type === "turn/start") return events[i]!.seq - 1;
      if (type === "user/message" || type === "assistant/message" || type === "turn/end") break;
    }
    return messageSeq - 1;
  }
  if (message.type === "assistant/message") {
    for (let i = at + 1; i < events.length; i++) {
      const type = events[i]!.type;
      if (
        type === "user/message" ||
        type === "assistant/message" ||
        type === "step/start" ||
        type === "turn/start" ||
        type === "restore/start"
      )
        return events[i]!.seq - 1;
    }
    return events.at(-1)!.seq;
  }
  return messageSeq;
}
