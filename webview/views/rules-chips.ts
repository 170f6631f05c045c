import { html, nothing, type TemplateResult } from "lit-html";
import type { RuleFileInfo, SessionRules } from "../../core/protocol";

const STATE_TEXT: Record<RuleFileInfo["state"], string> = {
  whole: "",
  truncated: " (truncated)",
  omitted: " (left out)",
  refused: " (refused)",
};

/**
 * Which rules files the session's next request puts in its system prompt (issue 25 item 2),
 * as chips that open the file. A file the budget cut or left out, or one refused (a link),
 * says so on its chip and in its tooltip.
 */
export function rulesChips(
  rules: SessionRules | undefined,
  open: (path: string) => void,
): TemplateResult | typeof nothing {
  if (!rules?.files.length) return nothing;
  return html`<div class="rules-chips" role="group" aria-label="Rules files">
    <span class="rules-title"><i aria-hidden="true" class="codicon codicon-law"></i> Rules</span>
    ${rules.files.map((f) => {
      const tip = `${f.path}: ${f.scope ? `applies to ${f.scope}/` : "applies to the whole workspace"}${f.note ? `; ${f.note}` : ""}`;
      return f.state === "refused"
        ? html`<span class="chip rules-chip refused" title=${tip}>${f.path}${STATE_TEXT[f.state]}</span>`
        : html`<button
            type="button"
            class="chip rules-chip ${f.state}"
            title=${tip}
            aria-label="Open rules file ${f.path}${STATE_TEXT[f.state]}"
            @click=${() => open(f.path)}
          >
            ${f.path}${STATE_TEXT[f.state]}
          </button>`;
    })}
  </div>`;
}
