import { html, type TemplateResult } from "lit-html";

export interface AgentAsk {
  agentId: string;
  agentName: string;
  currentName: string;
}

/** Asks before a new session replaces the open one: an agent cannot take over another agent's session. */
export function agentConfirm(ask: AgentAsk, answer: (start: boolean) => void): TemplateResult {
  return html`<div
    class="agent-ask"
    role="alertdialog"
    aria-label="Change agent"
    aria-describedby="agent-ask-text"
    @keydown=${(e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      e.preventDefault();
      answer(false);
    }}
  >
    <p id="agent-ask-text">
      ${ask.agentName} works in its own sessions, so this conversation stays with ${ask.currentName}. Start a new
      ${ask.agentName} session?
    </p>
    <div class="agent-ask-buttons">
      <button type="button" class="primary" @click=${() => answer(true)}>Start New Session</button>
      <button type="button" class="secondary" @click=${() => answer(false)}>Keep This Session</button>
    </div>
  </div>`;
}
