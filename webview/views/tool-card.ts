import { html, nothing, type TemplateResult } from "lit-html";
import type { ApprovalDecision, ToolCallBlock } from "../../core/protocol";
import type { ToolState } from "../model";

export interface ToolActions {
  approve(toolCallId: string, decision: ApprovalDecision): void;
  openDiff(toolCallId: string): void;
  undo(toolCallId: string): void;
}

const EDIT_TOOLS = new Set(["edit_file", "write_file"]);

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

function diffView(diff: string): TemplateResult {
  return html`<pre class="diff">${diff.split("\n").map((line) => {
    const cls = line.startsWith("+") && !line.startsWith("+++") ? "add" : line.startsWith("-") && !line.startsWith("---") ? "del" : line.startsWith("@@") ? "hunk" : "";
    return html`<span class=${cls}>${line}\n</span>`;
  })}</pre>`;
}

/** A tool call: arguments, live status and output, the edit's diff, and Approve / Deny while pending. */
export function toolCard(call: ToolCallBlock, state: ToolState | undefined, actions: ToolActions, details: Details): TemplateResult {
  const status = state?.status ?? "called";
  const s = STATUS[status];
  const edit = state?.details?.kind === "edit" ? state.details : state?.preview?.kind === "edit" ? state.preview : undefined;
  const command = state?.preview?.kind === "command" ? state.preview : state?.details?.kind === "command" ? state.details : undefined;
  const resultText = state?.result?.map((p) => (p.type === "text" ? p.text : `[image ${p.mediaType}]`)).join("\n") ?? "";
  const output = state?.output || resultText;
  return html`<section class="tool-card status-${status}" role="group" aria-label="Tool ${call.name}: ${s.label}">
    ${details(
      "args",
      html`<i aria-hidden="true" class="codicon codicon-${s.icon}"></i><span class="tool-name">${call.name}</span><span class="tool-arg">${argSummary(call.arguments)}</span><span class="tool-status">${s.label}</span>`,
      html`<pre class="tool-args">${JSON.stringify(call.arguments, null, 2)}</pre>`,
      "tool-head",
    )}
    ${command ? html`<div class="tool-command"><i aria-hidden="true" class="codicon codicon-terminal"></i><code>${command.command}</code><span class="cwd">in ${command.cwd}</span></div>` : nothing}
    ${
      edit
        ? html`<div class="tool-edit"><div class="edit-head"><i aria-hidden="true" class="codicon codicon-diff"></i><span>${edit.path}</span><span class="added">+${edit.added}</span><span class="removed">−${edit.removed}</span>
            <button type="button" class="link-button" @click=${() => actions.openDiff(call.id)}>Open diff</button></div>${diffView(edit.diff)}</div>`
        : nothing
    }
    ${
      status === "approval"
        ? html`<div class="approval" role="alert">
            <div class="approval-text">${state?.approvalSummary ?? `Run ${call.name}?`}</div>
            <div class="approval-buttons">
              <button type="button" class="primary" ?disabled=${state?.answering} @click=${() => actions.approve(call.id, { approved: true, scope: "once" })}>Approve</button>
              <button type="button" class="secondary" ?disabled=${state?.answering} @click=${() => actions.approve(call.id, { approved: true, scope: "session" })}>Allow for this session</button>
              <button type="button" class="secondary" ?disabled=${state?.answering} @click=${() => actions.approve(call.id, { approved: false })}>Deny</button>
            </div>
            ${state?.answering ? html`<div class="approval-sending" role="status">Sending your answer…</div>` : nothing}
          </div>`
        : nothing
    }
    ${state?.decision ? html`<div class="tool-decision">${state.decision}</div>` : nothing}
    ${
      state?.undone
        ? html`<div class="tool-undone" role="status">Undone: ${state.undone} is back to its content before this edit</div>`
        : status === "done" && state?.details?.kind === "edit" && EDIT_TOOLS.has(call.name)
          ? html`<div class="tool-undo"><button type="button" class="secondary" ?disabled=${state.undoing} @click=${() => actions.undo(call.id)}>Undo</button></div>`
          : nothing
    }
    ${state?.message ? html`<div class="tool-message">${state.message}</div>` : nothing}
    ${output ? details("out", html`<i aria-hidden="true" class="codicon codicon-output"></i> Output`, html`<pre class="tool-output">${output}</pre>`, "tool-out") : nothing}
  </section>`;
}
