import { html, nothing, type TemplateResult } from "lit-html";
import type { ApprovalDecision, ToolCallBlock } from "../../core/protocol";
import type { ToolState } from "../conversation";
import { toolView } from "../rendered";
import { feedbackButton, feedbackField, type FeedbackActions } from "./deny-feedback";
import { toolImages } from "./tool-images";

export interface ToolActions extends FeedbackActions {
  approve(toolCallId: string, decision: ApprovalDecision): void;
  openDiff(toolCallId: string): void;
  undo(toolCallId: string): void;
}

type Details = (key: string, summary: TemplateResult | string, body: TemplateResult, cls: string) => TemplateResult;

const STATUS: Record<ToolState["status"], { label: string; icon: string }> = {
  called: { label: "called", icon: "circle-outline" },
  approval: { label: "waiting for approval", icon: "shield" },
  running: { label: "running", icon: "loading codicon-modifier-spin" },
  done: { label: "done", icon: "check" },
  failed: { label: "failed", icon: "error" },
  refused: { label: "refused", icon: "circle-slash" },
  cancelled: { label: "cancelled", icon: "debug-stop" },
};

function argSummary(args: Record<string, unknown>): string {
  const first = Object.values(args).find((v) => typeof v === "string") as string | undefined;
  return first ? first.split("\n")[0]!.slice(0, 80) : "";
}

/**
 * The hunks of an edit's unified diff, one line each. Its `--- a/… +++ b/…` header is left out:
 * the card's head names the file. Inside a hunk the first character alone says what a line is
 * (a removed "-- comment" reads "--- comment"). The line break is an expression, not template
 * text: a formatter once turned the template's `\n` into a space and the whole diff ran on one
 * line, cut off at the sidebar's edge.
 */
function diffView(diff: string): TemplateResult {
  const lines = diff.replace(/\n$/, "").split("\n");
  const firstHunk = lines.findIndex((line) => line.startsWith("@@"));
  const shown = firstHunk > 0 ? lines.slice(firstHunk) : lines;
  const inHunks = firstHunk >= 0;
  const classOf = (line: string) =>
    !inHunks ? "" : line.startsWith("@@") ? "hunk" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "";
  return html`<pre class="diff">${shown.map((line) => html`<span class=${classOf(line)}>${`${line}\n`}</span>`)}</pre>`;
}

/** An MCP call's "always allow" for the tool or its whole server, in this folder (the host persists it). */
function alwaysButtons(
  id: string,
  mcp: { server: string; tool: string },
  answering: boolean,
  actions: ToolActions,
): TemplateResult {
  return html`<button
      type="button"
      class="secondary"
      title=${`Always allow ${mcp.tool} from the MCP server "${mcp.server}" in this folder`}
      ?disabled=${answering}
      @click=${() => actions.approve(id, { approved: true, scope: "always", always: "tool" })}
    >
      Always allow
    </button>
    <button
      type="button"
      class="secondary"
      title=${`Always allow every tool of the MCP server "${mcp.server}" in this folder`}
      ?disabled=${answering}
      @click=${() => actions.approve(id, { approved: true, scope: "always", always: "server" })}
    >
      Always allow server
    </button>`;
}

/** A tool call: arguments, status and output, the edit's diff, the command's exit, and Approve / Deny (with feedback) while pending. */
export function toolCard(
  call: ToolCallBlock,
  state: ToolState | undefined,
  actions: ToolActions,
  details: Details,
): TemplateResult {
  const v = toolView(call, state);
  const s = STATUS[v.status];
  return html`<section class="tool-card status-${v.status}" role="group" aria-label="Tool ${call.name}: ${s.label}">
    ${details(
      "args",
      html`<i aria-hidden="true" class="codicon codicon-${s.icon}"></i><span class="tool-name">${call.name}</span
        ><span class="tool-arg">${argSummary(call.arguments)}</span><span class="tool-status">${s.label}</span>`,
      html`<pre class="tool-args">${JSON.stringify(call.arguments, null, 2)}</pre>`,
      "tool-head",
    )}
    ${v.command ? html`<div class="tool-command"><i aria-hidden="true" class="codicon codicon-terminal"></i><code>${v.command.command}</code><span class="cwd">in ${v.command.cwd}</span>${v.exit ? html`<span class="tool-exit">${v.exit}</span>` : nothing}</div>` : nothing}
    ${
      v.edit
        ? html`<div class="tool-edit">
            <div class="edit-head">
              <i aria-hidden="true" class="codicon codicon-diff"></i><span>${v.edit.path}</span
              ><span class="added">+${v.edit.added}</span><span class="removed">−${v.edit.removed}</span>
              <button type="button" class="link-button" @click=${() => actions.openDiff(call.id)}>Open diff</button>
            </div>
            ${diffView(v.edit.diff)}
          </div>`
        : nothing
    }
    ${
      v.approval !== undefined
        ? html`<div class="approval" role="alert">
            <div class="approval-text">${v.approval}</div>
            <div class="approval-buttons">
              <button
                type="button"
                class="primary"
                ?disabled=${state?.answering}
                @click=${() => actions.approve(call.id, { approved: true, scope: "once" })}
              >
                Approve
              </button>
              <button
                type="button"
                class="secondary"
                ?disabled=${state?.answering}
                @click=${() => actions.approve(call.id, { approved: true, scope: "session" })}
              >
                Allow for this session
              </button>
              ${state?.mcp ? alwaysButtons(call.id, state.mcp, state.answering === true, actions) : nothing}
              <button
                type="button"
                class="secondary"
                ?disabled=${state?.answering}
                @click=${() => actions.approve(call.id, { approved: false })}
              >
                Deny
              </button>
              ${feedbackButton(call.id, state, actions)}
            </div>
            ${feedbackField(call.id, state, actions)}
            ${state?.answering ? html`<div class="approval-sending" role="status">Sending your answer…</div>` : nothing}
          </div>`
        : nothing
    }
    ${v.decision ? html`<div class="tool-decision">${v.decision}</div>` : nothing}
    ${v.message ? html`<div class="tool-message">${v.message}</div>` : nothing}
    ${v.undone ? html`<div class="tool-undone" role="status">Undone: ${v.undone} is back to its content before this edit</div>` : nothing}
    ${v.undo ? html`<div class="tool-undo"><button type="button" class="secondary" ?disabled=${state?.undoing} @click=${() => actions.undo(call.id)}>Undo</button></div>` : nothing}
    ${state?.result ? toolImages(call.id, state.result) : nothing}
    ${v.output ? details("out", html`<i aria-hidden="true" class="codicon codicon-output"></i> Output`, html`<pre class="tool-output">${v.output}</pre>`, "tool-out") : nothing}
  </section>`;
}
