import { html, type TemplateResult } from "lit-html";

/** Shown while the reader is scrolled up from the end of the conversation. */
export function jumpToLatest(jump: () => void): TemplateResult {
  return html`<button type="button" class="jump-latest secondary" @click=${jump}>
    <i aria-hidden="true" class="codicon codicon-arrow-down"></i> Jump to latest
  </button>`;
}
