import { html, nothing, type TemplateResult } from "lit-html";
import { estimateTokens, type AttachmentInfo, type ResolvedAttachment } from "../../core/protocol";

const ICONS: Record<AttachmentInfo["kind"], string> = {
  file: "file",
  folder: "folder",
  problems: "warning",
  selection: "selection",
  terminal: "terminal",
};
export const attachmentIcon = (kind: AttachmentInfo["kind"]) => ICONS[kind] ?? "file";

/** Tokens the composer's attachments add to the next request (an estimate: 4 characters a token). */
export function pendingTokens(attachments: readonly ResolvedAttachment[]): number {
  return attachments.reduce((n, a) => n + estimateTokens(a.text.length), 0);
}

/** The composer's attachments as chips, each with its size and a "Remove ‹name›" button. */
export function mentionChips(
  attachments: readonly ResolvedAttachment[],
  remove: (index: number) => void,
): TemplateResult | typeof nothing {
  if (!attachments.length) return nothing;
  return html`<ul class="attachments" aria-label="Attachments">
    ${attachments.map(
      (a, i) =>
        html`<li
          class="chip"
          title=${`${a.info.label}: about ${estimateTokens(a.text.length).toLocaleString("en-US")} tokens`}
        >
          <i aria-hidden="true" class="codicon codicon-${attachmentIcon(a.info.kind)}"></i
          ><span class="chip-label">${a.info.label}</span
          ><span class="chip-size">${estimateTokens(a.text.length).toLocaleString("en-US")} tok</span
          ><button type="button" class="icon-button" aria-label="Remove ${a.info.label}" @click=${() => remove(i)}>
            <i aria-hidden="true" class="codicon codicon-close"></i>
          </button>
        </li>`,
    )}
  </ul>`;
}

/** An attachment in a sent user message: a chip that expands to the text the model was sent. */
export function sentAttachment(info: AttachmentInfo, text: string): TemplateResult {
  return html`<details class="attachment-sent">
    <summary>
      <i aria-hidden="true" class="codicon codicon-${attachmentIcon(info.kind)}"></i>
      <span class="chip-label">${info.label}</span>
    </summary>
    <pre class="attachment-text">${text}</pre>
  </details>`;
}
