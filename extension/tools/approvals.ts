import * as vscode from "vscode";
import type { ApprovalDecision } from "../../core/protocol/tool-details";
import type { SessionApprovalRequest, WorkspaceRuntimeOptions } from "../../core/runtime/types";
import { PendingDecisions, type PendingDecision } from "../approval/decisions";
import type { ChatApprovalSink } from "../approval/chat-sink";
import { untilAborted } from "./cancellation";
import { askReason, EditReviews } from "./edit-reviews";
import type { ProposalStore } from "./proposals";
import { NOTIFICATIONS, reviewProposal, type Prompts } from "./review";

export interface ApproverOptions {
  /** The folder the runtime serves (`folder.uri.toString()`): part of every decision's key. */
  folderKey?: string;
  /** The editor tools' proposals (`createEditorTools(...).proposals`): edits are reviewed in a diff. */
  proposals?: ProposalStore;
  /** The window's open reviews (their title-bar commands); a private set when not given. */
  reviews?: EditReviews;
  /** The window's open decisions, shared with the chat (default: the chat's, else a private set). */
  decisions?: PendingDecisions;
  /** The chat, when it is there; a function so a chat created later is used. */
  chat?: ChatApprovalSink | (() => ChatApprovalSink | undefined);
  /** How the user is asked when no chat shows the session (default: notifications). */
  prompts?: Prompts;
}

export const APPROVE = "Approve";
export const ALLOW_SESSION = "Allow for this Session";
export const DENY = "Deny";
export const DENY_FEEDBACK = "Deny with Feedback…";

/** "edit src/a.ts (+3 −1)", "create src/b.ts (+12)", "run `npm test` in ./pkg". */
export function approvalSummary(req: Pick<SessionApprovalRequest, "summary" | "preview">): string {
  const p = req.preview;
  if (p?.kind === "edit")
    return p.newFile ? `create ${p.path} (+${p.added})` : `edit ${p.path} (+${p.added} −${p.removed})`;
  if (p?.kind === "command") return `run \`${p.command}\`${p.cwd === "." ? "" : ` in ./${p.cwd}`}`;
  return req.summary;
}

/**
 * The host's `approve` for a folder's runtime: one pending decision per call, keyed by
 * folder + agent + session + call, answered by whichever surface is first. Edits with a
 * proposal are reviewed in VS Code's diff editor (title-bar Accept / Reject) and on the
 * chat card; anything else on the chat card, plus a notification when no visible chat
 * shows the session. Stop resolves it as cancelled everywhere. Restricted Mode refuses
 * every edit and command whatever is asked.
 */
export function createApprover(options: ApproverOptions = {}): NonNullable<WorkspaceRuntimeOptions["approve"]> {
  const prompts = options.prompts ?? NOTIFICATIONS;
  const chat = () => (typeof options.chat === "function" ? options.chat() : options.chat);
  const own = new PendingDecisions();
  const reviews = options.reviews ?? new EditReviews(prompts);
  return async (req, signal) => {
    if (!vscode.workspace.isTrusted && req.kind !== "read") {
      return { approved: false, reason: "the workspace is in Restricted Mode" };
    }
    const summary = approvalSummary(req);
    const sink = chat();
    const folderKey = options.folderKey ?? vscode.workspace.workspaceFolders?.[0]?.uri.toString() ?? "";
    const decisions = options.decisions ?? sink?.decisions ?? own;
    const pending = decisions.ask(
      { folderKey, agentId: req.agentId, sessionId: req.sessionId, toolCallId: req.toolCallId },
      signal,
    );
    const call = { agentId: req.agentId, sessionId: req.sessionId, toolCallId: req.toolCallId };
    const proposal = req.kind === "edit" ? options.proposals?.get(call) : undefined;
    if (proposal) {
      const decision = await reviewProposal(options.proposals!, reviews, proposal, pending);
      if (!decision.approved) options.proposals!.delete(call);
      return decision;
    }
    if (!sink?.shows({ folderKey, agentId: req.agentId, sessionId: req.sessionId }))
      void notify(summary, pending, prompts);
    return pending.decision;
  };
}

/**
 * A notification answering the same decision. VS Code cannot withdraw a shown message:
 * once the decision settled elsewhere, a late click on it changes nothing.
 */
async function notify(summary: string, pending: PendingDecision, prompts: Prompts): Promise<void> {
  const choice = await untilAborted(pending.settled, () =>
    prompts.choose(`Downcity wants to ${summary}`, [APPROVE, ALLOW_SESSION, DENY, DENY_FEEDBACK], "warning"),
  );
  if (choice === APPROVE) pending.answer({ approved: true, scope: "once" });
  else if (choice === ALLOW_SESSION) pending.answer({ approved: true, scope: "session" });
  else if (choice === DENY) pending.answer({ approved: false });
  else if (choice === DENY_FEEDBACK) pending.answer(await askReason(`Why deny: ${summary}?`, pending, prompts));
  else pending.answer({ approved: false, reason: "the request was dismissed" });
}
