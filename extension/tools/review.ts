import * as vscode from "vscode";
import type { ApprovalDecision } from "../../core/protocol/tool-details";
import { ToolError } from "../../core/tools/errors";
import { untilAborted } from "./cancellation";
import { changedSince, computeProposal } from "./edit-tools";
import { basename, type Proposal, type ProposalStore } from "./proposals";

export const ACCEPT = "Accept";
export const EDIT_PROPOSAL = "Edit Proposal";
export const REJECT = "Reject";
export const ACCEPT_EDITED = "Accept Edited";
/** Times a proposal is recomputed because the file changed during review, before giving up. */
const MAX_REPROPOSALS = 3;

/** How the user is asked: notifications and an input box by default; in-host tests answer through it. */
export interface Prompts {
  choose(message: string, items: string[], severity: "info" | "warning"): Thenable<string | undefined>;
  reason(prompt: string): Thenable<string | undefined>;
}

export const NOTIFICATIONS: Prompts = {
  choose: (message, items, severity) =>
    severity === "warning" ? vscode.window.showWarningMessage(message, ...items) : vscode.window.showInformationMessage(message, ...items),
  reason: (prompt) => vscode.window.showInputBox({ prompt, ignoreFocusOut: true }),
};

/** Closes the diff tabs that show `uri` on either side. */
async function closeTabsShowing(uris: readonly vscode.Uri[]): Promise<void> {
  const groups = vscode.window.tabGroups;
  if (!groups) return;
  const keys = new Set(uris.map((u) => u.toString()));
  const tabs = groups.all.flatMap((g) => g.tabs).filter((t) => {
    const input = t.input as { modified?: vscode.Uri; uri?: vscode.Uri } | undefined;
    return (input?.modified && keys.has(input.modified.toString())) || (input?.uri && keys.has(input.uri.toString()));
  });
  if (tabs.length > 0) await groups.close(tabs, true);
}

/**
 * The review of an edit proposal: VS Code's diff editor between the file as the editor
 * has it and the proposed text (read-only), titled "<file> — Proposed by Downcity", and
 * a notification: Accept, Edit Proposal (an editable copy, accepted with Accept Edited),
 * Reject (with an optional reason for the model). A file that changed during the review
 * gets a fresh proposal; nothing is accepted against text the user did not see.
 */
export async function reviewProposal(
  store: ProposalStore,
  p: Proposal,
  summary: string,
  signal: AbortSignal,
  prompts: Prompts = NOTIFICATIONS,
): Promise<ApprovalDecision> {
  const ask = (message: string, ...items: string[]) => untilAborted(signal, () => prompts.choose(message, items, "info"));
  const proposed = store.uri(p.toolCallId, p.file, "proposed");
  const left = () => (p.baseText === undefined ? store.uri(p.toolCallId, p.file, "empty") : p.file.uri);
  const title = `${basename(p.file.shown)} — Proposed by Downcity`;
  let editable: vscode.TextDocument | undefined;
  try {
    let message = `Downcity: ${summary}`;
    for (let round = 0; ; round++) {
      await vscode.commands.executeCommand("vscode.diff", left(), proposed, title, { preview: false });
      let choice = await ask(message, ACCEPT, EDIT_PROPOSAL, REJECT);
      let accepted: string | undefined;
      if (choice === EDIT_PROPOSAL) {
        editable = await vscode.workspace.openTextDocument({ content: p.text });
        await vscode.commands.executeCommand("vscode.diff", left(), editable.uri, `${title} (editing)`, { preview: false });
        choice = await ask(`Downcity: edit the proposal for ${p.file.shown}, then accept it`, ACCEPT_EDITED, REJECT);
        if (choice === ACCEPT_EDITED) accepted = editable.getText();
      } else if (choice === ACCEPT) accepted = p.text;

      if (signal.aborted) return { approved: false, reason: "the call was cancelled during the review" };
      if (choice === REJECT) {
        const reason = await untilAborted(signal, () => prompts.reason(`Why reject the edit of ${p.file.shown}? (optional; Downcity tells the model)`));
        return reason?.trim() ? { approved: false, reason: reason.trim() } : { approved: false };
      }
      if (accepted === undefined) return { approved: false, reason: "the review was dismissed" };

      const changed = await changedSince(p);
      if (!changed) {
        p.accepted = accepted;
        return { approved: true, scope: "once" };
      }
      // The file moved under the review: propose again against what it is now.
      if (round + 1 >= MAX_REPROPOSALS) return { approved: false, reason: `${changed} while it was reviewed` };
      try {
        const fresh = await computeProposal(p.tool, p.args, p.root);
        Object.assign(p, { baseText: fresh.baseText, baseHash: fresh.baseHash, baseDisk: fresh.baseDisk, text: fresh.text, details: fresh.details, summary: fresh.summary });
        store.set(p);
      } catch (err) {
        const why = err instanceof ToolError ? err.message : String(err);
        return { approved: false, reason: `${changed} while it was reviewed, and the edit no longer applies: ${why}` };
      }
      message = `Downcity: ${changed} while you reviewed it; this is the proposal against the file as it is now. ${summary}`;
    }
  } finally {
    await closeTabsShowing([proposed, ...(editable ? [editable.uri] : [])]).catch(() => undefined);
    if (editable && !editable.isClosed) await discard(editable);
  }
}

/** Empties the editable copy so closing it never asks to save an untitled file. */
async function discard(doc: vscode.TextDocument): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.delete(doc.uri, new vscode.Range(new vscode.Position(0, 0), doc.positionAt(doc.getText().length)));
  await vscode.workspace.applyEdit(edit);
}
