import { html, nothing, type TemplateResult } from "lit-html";

/** What the restore buttons need of the app. */
export interface RestoreActions {
  /** "Restore to Here" (resend false) or "Edit and Resend" (a user message, resend true). */
  restore(seq: number, resend: boolean): void;
  readOnly: boolean;
}

/**
 * A message's restore actions (issue 24): "Restore to Here" on any logged message, and on
 * a user message "Edit and Resend". The host previews every file before anything is written.
 */
export function restoreButtons(
  kind: "user" | "assistant",
  seq: number | undefined,
  ctx: RestoreActions,
): TemplateResult | typeof nothing {
  if (ctx.readOnly || seq === undefined) return nothing;
  return html`<button
      type="button"
      class="icon-button"
      aria-label="Restore to Here"
      title="Restore to Here: put the files back as they were at this message"
      @click=${() => ctx.restore(seq, false)}
    >
      <i aria-hidden="true" class="codicon codicon-history"></i></button
    >${
      kind === "user"
        ? html`<button
            type="button"
            class="icon-button"
            aria-label="Edit and Resend"
            title="Edit and Resend: restore the files to this message and edit it in a fork"
            @click=${() => ctx.restore(seq, true)}
          >
            <i aria-hidden="true" class="codicon codicon-edit"></i>
          </button>`
        : nothing
    }`;
}
