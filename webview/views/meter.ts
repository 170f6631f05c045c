import { html, nothing, type TemplateResult } from "lit-html";
import { contextShare, type AgentEventOf, type ModelChoice } from "../../core/protocol";

/**
 * The context meter, always shown (issue 19 item 7): empty until the first request
 * reports usage. The figure is `contextShare`, the one the status bar shows too. A window
 * the run had to assume is said once, quietly, in the tooltip.
 */
export function meterView(
  usage: AgentEventOf<"usage"> | undefined,
  model: ModelChoice | undefined,
  compactedAt: number | undefined,
  pending = 0,
): TemplateResult {
  // The window the next run is judged against: the selected model's, once settings name one.
  const window = model?.contextWindow ?? usage?.contextWindow;
  const share = usage ? contextShare(usage.usage, window) : undefined;
  const assumed = !model?.contextWindow && usage?.windowAssumed;
  const ratio = share?.ratio ?? 0;
  // Attachments waiting in the composer (issue 25): shown before sending, as an estimate on top of the last real usage.
  const pendingWindow = share?.window ?? window;
  const pendingRatio = pending && pendingWindow ? Math.min(1 - Math.min(1, ratio), pending / pendingWindow) : 0;
  const total = Math.min(1, ratio + pendingRatio);
  const percent = share || pendingRatio ? `${Math.round(total * 100)}%` : "0%";
  const lines = [
    share
      ? `${share.used.toLocaleString("en-US")} of ${share.window.toLocaleString("en-US")} tokens (${Math.round(ratio * 100)}%)`
      : usage
        ? "Context window unknown"
        : "No request yet",
    ...(pending
      ? [
          `+ about ${pending.toLocaleString("en-US")} tokens attached, sent with the next message${pendingWindow ? ` (${percent} in all)` : ""}`,
        ]
      : []),
    ...(assumed
      ? [
          `The model's context window is unknown, so ${share?.window.toLocaleString("en-US")} tokens is assumed here; set contextWindow in its provider profile for the real figure and automatic compaction.`,
        ]
      : []),
  ];
  return html`<div
    class="meter"
    role="meter"
    aria-label="Context used"
    aria-valuemin="0"
    aria-valuemax=${share?.window ?? 100}
    aria-valuenow=${(share?.used ?? 0) + pending}
    title=${lines.join("\n")}
  >
    <div class="meter-bar">
      <div class="meter-fill ${total > 0.8 ? "high" : ""}" data-ratio=${ratio}></div>
      ${pendingRatio ? html`<div class="meter-pending" data-ratio=${pendingRatio} data-offset=${ratio}></div>` : nothing}${compactedAt !== undefined ? html`<div class="meter-marker" data-ratio=${Math.min(1, compactedAt)} title="Compacted here"></div>` : nothing}
    </div>
    <span class="meter-text">${percent}</span>
  </div>`;
}
