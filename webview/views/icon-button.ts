import { html, nothing, type TemplateResult } from "lit-html";

/** A toolbar button showing one codicon (the header's and the find bar's). */
export interface IconButton {
  /** The accessible name: tests and screen readers find the button by it. */
  label: string;
  /** The codicon's name without its `codicon-` prefix. */
  icon: string;
  /** The tooltip, when it says more than the label (a key, a caveat). */
  title?: string;
  disabled?: boolean;
  /** Set on a button that opens a list: whether the list is open (aria-expanded). */
  expanded?: boolean;
  onClick(): void;
}

export function iconButton(b: IconButton): TemplateResult {
  return html`<button
    type="button"
    class="icon-button"
    aria-label=${b.label}
    title=${b.title ?? b.label}
    aria-expanded=${b.expanded === undefined ? nothing : String(b.expanded)}
    ?disabled=${b.disabled ?? false}
    @click=${() => b.onClick()}
  >
    <i aria-hidden="true" class="codicon codicon-${b.icon}"></i>
  </button>`;
}
