import {
  callKey,
  sameRef,
  type ApprovalDecision,
  type ChatMethod,
  type ChatParams,
  type SessionRef,
  type ChatResult,
} from "../core/protocol";
import type { Conversation } from "./conversation";

/** What a tool card's answers need of the app: the shown session, its conversation and the RPC. */
export interface CardHost {
  ref(): SessionRef | undefined;
  conversation: Conversation;
  call<M extends ChatMethod>(method: M, params: ChatParams<M>): Promise<ChatResult<M> | undefined>;
  refresh(): void;
}

/**
 * How long a card says "Sending your answer…" before it says what happened and takes an
 * answer again. The host answers the RPC at once and the outcome follows within a second
 * or two even on a loaded machine; a card still waiting after this lost its answer or
 * its outcome on the way, and a button that stays disabled would leave the run stuck.
 */
export const ANSWER_MS = 20_000;

/**
 * The card's latest answer per call of a session (call ids repeat across sessions: local servers send call_0 in
 * every one): a timer of an earlier answer leaves a later one alone.
 */
const attempts = new Map<string, number>();
let lastAttempt = 0;

/**
 * Sends the card's answer to the one pending decision. The card shows "Sending…" until
 * the host's approval-resolved event says what was decided (from here or from the diff's
 * title bar first); "approved" is never shown on the webview's word alone. After
 * ANSWER_MS without an outcome the card says so and its buttons work again.
 */
export async function answerApproval(host: CardHost, toolCallId: string, decision: ApprovalDecision): Promise<void> {
  const ref = host.ref();
  if (!ref) return;
  const attempt = ++lastAttempt;
  const key = callKey(ref, toolCallId, ref.folderKey);
  attempts.set(key, attempt);
  // The view may switch sessions meanwhile; the card of the same id there is not this answer's.
  const stillShown = () => {
    const now = host.ref();
    return now !== undefined && sameRef(now, ref);
  };
  host.conversation.tool(toolCallId, (t) => {
    t.answering = true;
    t.message = undefined;
  });
  host.refresh();
  let replied = false;
  const timer = setTimeout(() => {
    if (attempts.get(key) !== attempt) return;
    attempts.delete(key);
    if (!stillShown()) return;
    host.conversation.tool(toolCallId, (t) => {
      if (!t.answering) return; // The outcome arrived.
      t.answering = false;
      t.message = replied
        ? `VS Code took your answer, but the run has not confirmed it after ${ANSWER_MS / 1000} s. Answer again, or Stop the run.`
        : `No reply from VS Code after ${ANSWER_MS / 1000} s: your answer may not have arrived. Answer again, or Stop the run.`;
    });
    host.refresh();
  }, ANSWER_MS);
  const result = await host.call("approve", { ref, toolCallId, decision });
  replied = true;
  // Resolved: the approval-resolved event that follows shows the outcome (and clears "Sending").
  if (result?.resolved) return;
  clearTimeout(timer);
  if (attempts.get(key) === attempt) attempts.delete(key);
  if (!stillShown()) return;
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
