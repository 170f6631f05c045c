import type { ApprovalDecision, ChatMethod, ChatParams, SessionRef, ChatResult } from "../core/protocol";
import type { Conversation } from "./conversation";

/** What a tool card's answers need of the app: the shown session, its conversation and the RPC. */
export interface CardHost {
  ref(): SessionRef | undefined;
  conversation: Conversation;
  call<M extends ChatMethod>(method: M, params: ChatParams<M>): Promise<ChatResult<M> | undefined>;
  refresh(): void;
}

/**
 * Sends the card's answer to the one pending decision. The card shows "Sending…" until
 * the host's approval-resolved event says what was decided (from here or from the diff's
 * title bar first); "approved" is never shown on the webview's word alone.
 */
export async function answerApproval(host: CardHost, toolCallId: string, decision: ApprovalDecision): Promise<void> {
  const ref = host.ref();
  if (!ref) return;
  host.conversation.tool(toolCallId, (t) => (t.answering = true));
  host.refresh();
  const result = await host.call("approve", { ref, toolCallId, decision });
  // Resolved: the approval-resolved event that follows shows the outcome (and clears "Sending").
  if (result?.resolved) return;
  host.conversation.tool(toolCallId, (t) => {
    if (!t.answering) return; // The outcome arrived first.
    t.answering = false;
    if (result && t.status === "approval")
      t.message = "Nothing waits for this answer any more: it was answered elsewhere, or its run stopped.";
  });
  host.refresh();
}

/** Opens the card's "Deny with feedback…" field (focused) or closes it (the focus back on its button). */
export function toggleFeedback(host: CardHost, toolCallId: string, open: boolean): void {
  host.conversation.tool(toolCallId, (t) => {
    t.feedback = open ? (t.feedback ?? "") : undefined;
    t.feedbackFocus = open ? "field" : "button";
  });
  host.refresh();
}

/** Undoes an applied edit; the card shows "Undone" once the host logged it, or the host's reason in a notice. */
export async function undoEdit(host: CardHost, toolCallId: string): Promise<void> {
  const ref = host.ref();
  if (!ref) return;
  host.conversation.tool(toolCallId, (t) => (t.undoing = true));
  host.refresh();
  await host.call("undoEdit", { ref, toolCallId });
  host.conversation.tool(toolCallId, (t) => (t.undoing = false));
  host.refresh();
}
