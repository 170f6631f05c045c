import type { AgentEvent, SessionEvent } from "../protocol";
import type { Session } from "../session";

/** A session's log event as the runtime's event feed tells it: the event itself, and compaction's start and end. */
export function forwardLogEvent(emit: (event: AgentEvent) => void, session: Session, event: SessionEvent): void {
  const base = { sessionId: session.id, agentId: session.agentId };
  emit({ type: "session-event", ...base, event });
  const data = (event.data ?? {}) as {
    reason?: string;
    folded?: number;
    closed?: number;
    note?: string;
    message?: string;
  };
  const reason = String(data.reason ?? "unknown");
  if (event.type === "compaction/start") emit({ type: "compaction-started", ...base, reason });
  else if (event.type === "compaction/end") {
    emit({
      type: "compaction-finished",
      ...base,
      reason,
      // compaction/end counts what it closed (CompactionEndData); by now the prefix is gone.
      closed: data.closed ?? 0,
      ...(typeof data.folded === "number" ? { folded: data.folded } : {}),
      ...(data.note ? { note: data.note } : {}),
    });
  } else if (event.type === "compaction/error") {
    emit({
      type: "compaction-finished",
      ...base,
      reason,
      closed: 0,
      error: String(data.message ?? "compaction failed"),
    });
  }
}
