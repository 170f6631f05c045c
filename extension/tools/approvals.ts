import * as vscode from "vscode";
import type { ApprovalDecision } from "../../core/protocol/tool-details";
import type { RuntimeApprovalRequest, WorkspaceRuntimeOptions } from "../../core/runtime/types";
import { untilAborted } from "./cancellation";
import type { ProposalStore } from "./proposals";
import { NOTIFICATIONS, reviewProposal, type Prompts } from "./review";

/** The chat's approval buttons. `request` returns undefined when the chat cannot take it (hidden). */
export interface ChatApprovalSink {
  request(req: RuntimeApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> | undefined;
}

export interface ApproverOptions {
  /** The editor tools' proposals (`createEditorTools(...).proposals`): edits are reviewed in a diff. */
  proposals?: ProposalStore;
  /** The chat, when it is there; a function so a chat created later is used. */
  chat?: ChatApprovalSink | (() => ChatApprovalSink | undefined);
  /** How the user is asked when the chat cannot (default: notifications). */
  prompts?: Prompts;
}

export const APPROVE = "Approve";
export const ALLOW_SESSION = "Allow for this Session";
export const DENY = "Deny";

/** "edit src/a.ts (+3 −1)", "create src/b.ts (+12)", "run `npm test` in ./pkg". */
export function approvalSummary(req: Pick<RuntimeApprovalRequest, "summary" | "preview">): string {
  const p = req.preview;
  if (p?.kind === "edit") return p.newFile ? `create ${p.path} (+${p.added})` : `edit ${p.path} (+${p.added} −${p.removed})`;
  if (p?.kind === "command") return `run \`${p.command}\`${p.cwd === "." ? "" : ` in ./${p.cwd}`}`;
  return req.summary;
}

/**
 * The host's `approve` for a folder's runtime. Edits with a proposal are reviewed in VS
 * Code's diff editor; anything else goes to the chat, or, with the chat hidden, to a
 * notification with Approve / Allow for this Session / Deny. Restricted Mode refuses
 * every edit and command whatever is asked.
 */
export function createApprover(options: ApproverOptions = {}): NonNullable<WorkspaceRuntimeOptions["approve"]> {
  const prompts = options.prompts ?? NOTIFICATIONS;
  const chat = () => (typeof options.chat === "function" ? options.chat() : options.chat);
  return async (req, signal) => {
    if (!vscode.workspace.isTrusted && req.kind !== "read") {
      return { approved: false, reason: "the workspace is in Restricted Mode" };
    }
    const summary = approvalSummary(req);
    const proposal = req.kind === "edit" ? options.proposals?.get(req.toolCallId) : undefined;
    if (proposal) {
      const decision = await reviewProposal(options.proposals!, proposal, summary, signal, prompts);
      if (!decision.approved) options.proposals!.delete(req.toolCallId);
      return decision;
    }
    const fromChat = chat()?.request({ ...req, summary }, signal);
    if (fromChat) return fromChat;
    return notify(summary, signal, prompts);
  };
}

async function notify(summary: string, signal: AbortSignal, prompts: Prompts): Promise<ApprovalDecision> {
  if (signal.aborted) return { approved: false, reason: "the call was cancelled" };
  const choice = await untilAborted(signal, () => prompts.choose(`Downcity wants to ${summary}`, [APPROVE, ALLOW_SESSION, DENY], "warning"));
  if (choice === APPROVE) return { approved: true, scope: "once" };
  if (choice === ALLOW_SESSION) return { approved: true, scope: "session" };
  if (signal.aborted) return { approved: false, reason: "the call was cancelled" };
  return choice === DENY ? { approved: false } : { approved: false, reason: "the request was dismissed" };
}
