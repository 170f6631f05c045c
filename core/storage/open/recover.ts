import type { AssistantMessageData, SessionEvent, ToolResultData } from "../../protocol";
import type { Session } from "../../session";
import type { StoredDraft } from "./draft";

/** Whether the log already holds the final message of this draft (so the draft is a leftover). */
export function draftCommitted(draftId: string, ...logs: readonly (readonly SessionEvent[])[]): boolean {
  for (const log of logs) {
    for (const e of log) {
      if (e.type === "assistant/message" && (e.data as { draftId?: unknown }).draftId === draftId) return true;
    }
  }
  return false;
}

/** Appends the draft as an interrupted assistant message, parts in their order. */
export function recoverDraft(session: Session, draft: StoredDraft): SessionEvent {
  const data: AssistantMessageData & { draftId: string } = {
    content: draft.blocks,
    interrupted: true,
    draftId: draft.draftId,
  };
  if (draft.provider) data.provider = draft.provider;
  if (draft.model) data.model = draft.model;
  return session.append("assistant/message", data, { surface: "append", time: draft.time });
}

/**
 * Closes what a crash left open so the next provider request is valid: every tool
 * call on the Surface without a result gets a synthetic error result, and an open
 * step and turn are ended. `earlier` are events before Active (the latest segment),
 * consulted for turn state only.
 */
export function closeOpenTransactions(session: Session, earlier: readonly SessionEvent[], actions: string[]): void {
  closeToolCalls(session, actions);
  closeTurn(session, earlier, actions);
}

/**
 * Synthetic results for Surface tool calls that have none (call before and after
 * recovering a draft). Calls and results pair within their turn, in order: local
 * providers reuse ids (`call_0` in every turn), so a result of an earlier turn never
 * answers a later call of the same id. A synthetic result may also answer a call of an
 * earlier turn (an older recovery put it after that turn), which keeps this idempotent.
 */
export function closeToolCalls(session: Session, actions: string[]): void {
  const onSurface = new Set(session.surface.nodes);
  const orphans: { id: string; name: string; started: boolean }[] = [];
  let open: { id: string; name: string; started: boolean }[] = [];
  const endTurn = () => {
    orphans.push(...open);
    open = [];
  };
  for (const e of session.events()) {
    if (e.type === "turn/start") endTurn();
    else if (e.type === "assistant/message" && onSurface.has(e.seq)) {
      for (const block of (e.data as AssistantMessageData).content) {
        if (block.type === "tool-call") open.push({ id: block.id, name: block.name, started: false });
      }
    } else if (
      e.type === "tool/call" ||
      (e.type === "tool/approval" && (e.data as { decision: string }).decision === "approved")
    ) {
      const id = (e.data as { toolCallId: string }).toolCallId;
      const call = open.find((c) => c.id === id && !c.started);
      if (call) call.started = true;
    } else if (e.type === "tool/result") {
      const data = e.data as ToolResultData;
      const i = open.findIndex((c) => c.id === data.toolCallId);
      if (i >= 0) open.splice(i, 1);
      // An earlier recovery's answer to a call of a turn that had already ended.
      else if (data.synthetic !== undefined) {
        const j = orphans.findIndex((c) => c.id === data.toolCallId);
        if (j >= 0) orphans.splice(j, 1);
      }
    }
  }
  endTurn();
  for (const orphan of orphans) {
    const kind = orphan.started ? "outcome-unknown" : "not-started";
    const text =
      kind === "not-started"
        ? "The session was interrupted before this tool call ran. It was not executed."
        : "The session was interrupted while this tool call was running. Its outcome is unknown; check before retrying.";
    const data: ToolResultData = {
      toolCallId: orphan.id,
      toolName: orphan.name,
      content: [{ type: "text", text }],
      isError: true,
      synthetic: kind,
    };
    session.append("tool/result", data, { surface: "append" });
  }
  if (orphans.length > 0)
    actions.push(
      `added ${orphans.length} synthetic tool result(s) for tool calls without a result (${orphans.map((o) => o.id).join(", ")})`,
    );
}

export function closeTurn(session: Session, earlier: readonly SessionEvent[], actions: string[]): void {
  const events = session.events();

  const open = { turn: false, step: false };
  for (const list of [earlier, events]) {
    for (const e of list) {
      if (e.type === "turn/start") open.turn = true;
      else if (e.type === "turn/end") open.turn = open.step = false;
      else if (e.type === "step/start") open.step = true;
      else if (e.type === "step/end") open.step = false;
    }
  }
  if (open.step) {
    session.append("step/end", {});
    actions.push("closed an unterminated step");
  }
  if (open.turn) {
    session.append("turn/end", { reason: "interrupted" });
    actions.push('closed an unterminated turn (reason "interrupted")');
  }
}
