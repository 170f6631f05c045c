import { html, nothing, type TemplateResult } from "lit-html";
import type { MovedChat } from "../../core/protocol";
import { movedChat } from "./moved-chat";

export interface EmptyStateProps {
  /** A session is shown. */
  shown: boolean;
  /** The shown session has no item yet. */
  empty: boolean;
  moved: MovedChat | undefined;
  /** Why the shown session went (it was deleted). */
  closedMessage: string | undefined;
}

export interface EmptyStateActions {
  newSession(): void;
  bringBack(moved: MovedChat): void;
}

/** What the log area says when there is nothing to show: moved to an editor, deleted, no session, or a new one. */
export function emptyState(p: EmptyStateProps, a: EmptyStateActions): TemplateResult | typeof nothing {
  if (!p.shown && p.moved) {
    const moved = p.moved;
    return movedChat(moved, { bringBack: () => a.bringBack(moved), newSession: () => a.newSession() });
  }
  if (!p.shown && p.closedMessage) {
    return html`<div class="empty-state" role="status">
      <i aria-hidden="true" class="codicon codicon-trash"></i>
      <h2>Session deleted</h2>
      <p>${p.closedMessage}</p>
      <div class="empty-buttons">
        <button type="button" class="primary" @click=${() => a.newSession()}>New Session</button>
      </div>
    </div>`;
  }
  if (!p.shown) {
    return html`<div class="empty-state">
      <i aria-hidden="true" class="codicon codicon-comment-discussion"></i>
      <h2>Ask the agent</h2>
      <p>Type a message below to start a session, or open one from the Sessions view.</p>
      <div class="empty-buttons">
        <button type="button" class="primary" @click=${() => a.newSession()}>New Session</button>
      </div>
    </div>`;
  }
  if (p.empty)
    return html`<div class="empty-hint">Ask the agent about this workspace. Type <kbd>@</kbd> to attach a file.</div>`;
  return nothing;
}

/** Above the log: Load earlier while older pages exist, else the start of the session. */
export function historyBar(hasOlder: boolean, loading: boolean, loadEarlier: () => void): TemplateResult {
  return html`<div class="history-bar">
    ${
      hasOlder
        ? html`<button type="button" class="secondary" ?disabled=${loading} @click=${() => loadEarlier()}>
            <i aria-hidden="true" class="codicon codicon-fold-up"></i> Load earlier
          </button>`
        : html`<span class="history-start">Start of session</span>`
    }
  </div>`;
}
