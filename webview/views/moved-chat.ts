import { html, type TemplateResult } from "lit-html";
import type { MovedChat } from "../../core/protocol";

/**
 * The sidebar's placeholder once its conversation moved to an editor tab (Open Chat in
 * Editor): it names the conversation and offers it back, or a new session here.
 */
export function movedChat(moved: MovedChat, actions: { bringBack(): void; newSession(): void }): TemplateResult {
  return html`<div class="empty-state" role="status">
    <i aria-hidden="true" class="codicon codicon-link-external"></i>
    <h2>Chat moved to an editor</h2>
    <p>
      ${moved.title ? html`“${moved.title}” is` : "This conversation is"} open in an editor tab. Type below to start a
      new session here.
    </p>
    <div class="empty-buttons">
      <button type="button" class="primary" @click=${actions.bringBack}>Bring Chat Back</button>
      <button type="button" class="secondary" @click=${actions.newSession}>New Session</button>
    </div>
  </div>`;
}
