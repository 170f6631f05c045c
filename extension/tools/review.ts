import * as vscode from "vscode";
import type { ApprovalDecision } from "../../core/protocol/tool-details";
import type { PendingDecision } from "../approval/decisions";
import type { EditReviews, ReasonPrompt } from "./edit-reviews";
import { basename, type Proposal, type ProposalStore } from "./proposals";

/** How the user is asked outside the chat and the diff: a notification, and an input box for a reason. */
export interface Prompts extends ReasonPrompt {
  choose(message: string, items: string[], severity: "info" | "warning"): Thenable<string | undefined>;
}

export const NOTIFICATIONS: Prompts = {
  choose: (message, items, severity) =>
    severity === "warning"
      ? vscode.window.showWarningMessage(message, ...items)
      : vscode.window.showInformationMessage(message, ...items),
  reason: (prompt, token) => vscode.window.showInputBox({ prompt, ignoreFocusOut: true }, token),
};

/**
 * The review of an edit proposal: VS Code's diff editor between the file as the editor
 * has it and the proposed text (read-only), titled "<file> — Proposed by Downcity", with
 * Accept / Reject / Edit Proposal in its title bar. The chat card answers the same
 * decision; no notification is needed (a toast hides after seconds, the diff stays).
 * Accepted text written against a file that changed meanwhile is refused by the edit
 * tool itself, so nothing is applied to text the user did not see.
 */
export function reviewProposal(
  store: ProposalStore,
  reviews: EditReviews,
  p: Proposal,
  pending: PendingDecision,
): Promise<ApprovalDecision> {
  const proposed = store.uri(p.call, p.file, "proposed");
  const left = p.baseText === undefined ? store.uri(p.call, p.file, "empty") : p.file.uri;
  return reviews.review(pending, p, left, proposed, `${basename(p.file.shown)} — Proposed by Downcity`);
}
