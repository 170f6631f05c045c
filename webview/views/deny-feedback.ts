import { html, nothing, type TemplateResult } from "lit-html";
import { ref } from "lit-html/directives/ref.js";
import { DENY_REASON_MAX, denyReason, type ApprovalDecision } from "../../core/protocol";
import type { ToolState } from "../conversation";

/** What the card's "Deny with feedback…" needs: open or close its reason field, and send. */
export interface FeedbackActions {
  approve(toolCallId: string, decision: ApprovalDecision): void;
  /** Opens the field (true) or closes it (false); the typed draft is kept in the card's state meanwhile. */
  feedback(toolCallId: string, open: boolean): void;
}

/** The denial the field sends: with the cleaned reason, or none when nothing is left of it. */
export function denial(draft: string | undefined): ApprovalDecision {
  const reason = denyReason(draft);
  return reason ? { approved: false, reason } : { approved: false };
}

/** Focuses the element once, when the state asked for it (opening the field, or leaving it with Escape). */
const focusWhen = (state: ToolState, target: NonNullable<ToolState["feedbackFocus"]>) =>
  ref((el) => {
    if (!(el instanceof HTMLElement) || state.feedbackFocus !== target) return;
    state.feedbackFocus = undefined;
    // A new row's template is committed before it is attached, when focus() would do nothing.
    if (el.isConnected) el.focus();
    else queueMicrotask(() => el.focus());
  });

/** The button that opens the field; hidden while it is open. */
export function feedbackButton(
  id: string,
  state: ToolState | undefined,
  a: FeedbackActions,
): TemplateResult | typeof nothing {
  if (state?.feedback !== undefined) return nothing;
  return html`<button
    type="button"
    class="secondary"
    title="Deny, and tell the agent why"
    ?disabled=${state?.answering}
    @click=${() => a.feedback(id, true)}
    ${state ? focusWhen(state, "button") : nothing}
  >
    Deny with feedback…
  </button>`;
}

/**
 * The inline reason field: Enter denies with what it holds (the agent gets it as the call's
 * result), Escape closes it without denying (and without stopping the run, the chat's Escape).
 */
export function feedbackField(
  id: string,
  state: ToolState | undefined,
  a: FeedbackActions,
): TemplateResult | typeof nothing {
  if (!state || state.feedback === undefined) return nothing;
  // Typing only keeps the draft (a re-render per key would be wasted): the field shows its own value.
  const send = () => a.approve(id, denial(state.feedback));
  const key = (e: KeyboardEvent) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    } else if (e.key === "Escape") {
      e.preventDefault();
      a.feedback(id, false);
    }
  };
  return html`<div class="deny-feedback">
    <input
      type="text"
      class="deny-reason"
      aria-label="Reason for denying"
      placeholder="Why? The agent is told (Enter denies, Escape cancels)"
      maxlength=${DENY_REASON_MAX}
      .value=${state.feedback}
      ?disabled=${state.answering}
      @input=${(e: Event) => (state.feedback = (e.target as HTMLInputElement).value)}
      @keydown=${key}
      ${focusWhen(state, "field")}
    />
    <button type="button" class="secondary" ?disabled=${state.answering} @click=${send}>Deny with this reason</button>
  </div>`;
}
