import * as vscode from "vscode";
import { sameRef, type ApprovalDecision } from "../../core/protocol";
import type { DecisionKey, PendingDecision } from "../approval/decisions";
import { tokenFor, untilAborted } from "./cancellation";
import type { Proposal } from "./proposals";

export const ACCEPT_EDIT_COMMAND = "downcity.acceptEdit";
export const REJECT_EDIT_COMMAND = "downcity.rejectEdit";
export const EDIT_PROPOSAL_COMMAND = "downcity.editProposal";
/** Internal: the chat card's Open diff on a pending edit, `(DecisionKey)` → whether a review was shown. */
export const SHOW_REVIEW_COMMAND = "downcity.tools.showReview";
/** Context keys the diff editor's title-bar actions show on (package.json `menus.editor/title`). */
export const REVIEW_PENDING_CONTEXT = "downcity.reviewPending";
export const REVIEW_EDITING_CONTEXT = "downcity.reviewEditing";

/** How a rejecting user is asked for a reason; the in-host and fake tests answer through it. */
export interface ReasonPrompt {
  reason(prompt: string, token: vscode.CancellationToken): Thenable<string | undefined>;
}

export const INPUT_BOX: ReasonPrompt = {
  reason: (prompt, token) => vscode.window.showInputBox({ prompt, ignoreFocusOut: true }, token),
};

/**
 * A denial with the reason an input box asks for (the diff's Reject, the notification's Deny with
 * Feedback…); Escape denies without one. An answer elsewhere meanwhile closes the box.
 */
export async function askReason(
  question: string,
  pending: PendingDecision,
  prompts: ReasonPrompt,
): Promise<ApprovalDecision> {
  const token = tokenFor(pending.settled);
  try {
    const reason = await untilAborted(pending.settled, () =>
      prompts.reason(`${question} (optional; Downcity tells the model)`, token.token),
    );
    // The runtime cleans and caps it (core/protocol/deny-reason.ts), as it does every surface's.
    return reason?.trim() ? { approved: false, reason: reason.trim() } : { approved: false };
  } finally {
    token.dispose();
  }
}

/** One edit under review: its pending decision, the diff it shows, and the user's editable copy once asked for. */
export class Review {
  editable: vscode.TextDocument | undefined;
  /** Every diff this review opened (the first, Open diff's, Edit Proposal's): the cleanup waits on each before its last close. */
  readonly opens: Promise<unknown>[] = [];

  constructor(
    readonly pending: PendingDecision,
    readonly proposal: Proposal,
    readonly left: vscode.Uri,
    readonly proposed: vscode.Uri,
    readonly title: string,
  ) {}

  /** The URIs on the right side of this review's diffs (what the title-bar commands are given). */
  uris(): vscode.Uri[] {
    return this.editable ? [this.proposed, this.editable.uri] : [this.proposed];
  }

  /** What Accept writes: the user's edited copy when they made one, else the proposal. */
  acceptedText(): string {
    return this.editable && !this.editable.isClosed ? this.editable.getText() : this.proposal.text;
  }

  /**
   * Opens one of this review's diffs, against `right`; nothing once the decision settled.
   * Never awaited before the decision: the workbench may be slow, or never answer.
   */
  showDiff(right: vscode.Uri, title: string): Promise<unknown> {
    if (this.pending.settled.aborted) return Promise.resolve();
    const open = Promise.resolve(
      vscode.commands.executeCommand("vscode.diff", this.left, right, title, { preview: false }),
    ).catch(() => undefined);
    this.opens.push(open);
    return open;
  }
}

/**
 * The window's open edit reviews, answered from the diff editor's title bar (Accept,
 * Reject, Edit Proposal, like Copilot's Keep / Undo) as well as from the chat card. Each
 * action answers the review's one pending decision; the review then closes its tabs.
 */
export class EditReviews {
  private readonly open = new Set<Review>();

  constructor(private readonly prompts: ReasonPrompt = INPUT_BOX) {}

  /** The title-bar commands; registered once per window. */
  register(): vscode.Disposable {
    const registrations = [
      vscode.commands.registerCommand(ACCEPT_EDIT_COMMAND, (uri?: vscode.Uri) => this.accept(uri)),
      vscode.commands.registerCommand(REJECT_EDIT_COMMAND, (uri?: vscode.Uri) => this.reject(uri)),
      vscode.commands.registerCommand(EDIT_PROPOSAL_COMMAND, (uri?: vscode.Uri) => this.editProposal(uri)),
      vscode.commands.registerCommand(SHOW_REVIEW_COMMAND, (key: DecisionKey) => this.show(key)),
    ];
    return new vscode.Disposable(() => registrations.forEach((r) => r.dispose()));
  }

  /**
   * Shows the proposal in the diff editor until its decision settles (from any surface).
   * Resolves with the decision as soon as it settles; an approved edit's `accepted` text is
   * set (the user's edited copy, if they made one). Neither opening the diff nor closing its
   * tabs is awaited before that: the workbench may take long or never answer (a tab closed
   * while it opened), and the decision, its log line and the write must not wait on it.
   */
  async review(pending: PendingDecision, proposal: Proposal, left: vscode.Uri, proposed: vscode.Uri, title: string) {
    const review = new Review(pending, proposal, left, proposed, title);
    this.open.add(review);
    this.sync();
    void review.showDiff(proposed, title);
    try {
      const decision = await pending.decision;
      if (decision.approved) proposal.accepted = review.acceptedText();
      return decision;
    } finally {
      this.open.delete(review);
      this.sync();
      void cleanUp(review);
    }
  }

  /** The review a title-bar command was run on: by the diff's URI, else the active diff, else the only one open. */
  find(uri?: vscode.Uri): Review | undefined {
    const target = (uri ?? activeDiffUri())?.toString();
    const all = [...this.open];
    if (target) {
      const found = all.find((r) => r.uris().some((u) => u.toString() === target));
      if (found) return found;
    }
    return all.length === 1 ? all[0] : undefined;
  }

  accept(uri?: vscode.Uri): boolean {
    const review = this.find(uri);
    return review ? review.pending.answer({ approved: true, scope: "once" }) : nothingOpen();
  }

  /** Rejects, after asking for an optional reason for the model; an answer elsewhere meanwhile closes the question. */
  async reject(uri?: vscode.Uri): Promise<boolean> {
    const review = this.find(uri);
    if (!review) return nothingOpen();
    const question = `Why reject the edit of ${review.proposal.file.shown}?`;
    return review.pending.answer(await askReason(question, review.pending, this.prompts));
  }

  /** Opens an editable copy of the proposal beside the file; Accept then writes the copy. */
  async editProposal(uri?: vscode.Uri): Promise<boolean> {
    const review = this.find(uri);
    if (!review) return nothingOpen();
    if (!review.editable || review.editable.isClosed) {
      const copy = await vscode.workspace.openTextDocument({ content: review.proposal.text });
      if (review.pending.settled.aborted) {
        // Answered while the copy was made: the review's cleanup has run, nothing may open for it now.
        await bounded(discard(copy), WORKBENCH_MS);
        return nothingOpen();
      }
      review.editable = copy;
      this.sync();
    }
    await review.showDiff(review.editable.uri, `${review.title} (editing)`);
    return true;
  }

  /** Shows a pending review's diff again (the user closed it before answering). */
  async show(key: DecisionKey): Promise<boolean> {
    const review = [...this.open].find((r) => sameKey(r.pending.key, key));
    if (!review) return false;
    await review.showDiff(review.proposed, review.title);
    return true;
  }

  get size(): number {
    return this.open.size;
  }

  private sync(): void {
    const all = [...this.open];
    void vscode.commands.executeCommand("setContext", REVIEW_PENDING_CONTEXT, all.length > 0);
    void vscode.commands.executeCommand(
      "setContext",
      REVIEW_EDITING_CONTEXT,
      all.some((r) => r.editable !== undefined),
    );
  }
}

const sameKey = (a: DecisionKey, b: DecisionKey) => sameRef(a, b) && a.toolCallId === b.toolCallId;

function nothingOpen(): false {
  void vscode.window.showInformationMessage(
    "Downcity: no edit is waiting for review here (it was answered already, or its run stopped).",
  );
  return false;
}

function activeDiffUri(): vscode.Uri | undefined {
  const input = vscode.window.tabGroups?.activeTabGroup?.activeTab?.input as { modified?: vscode.Uri } | undefined;
  return input?.modified;
}

/**
 * How long the cleanup of an answered review waits on one workbench call (the diff still
 * opening, a tab closing). Nothing waits on the cleanup; the bound only ends a call that
 * never settles, so a stuck workbench leaks no pending work.
 */
export const WORKBENCH_MS = 15_000;

/** Settles with the call, or after `ms` (then false): cleanup never hangs on the workbench. */
function bounded<T>(call: Thenable<T>, ms: number): Promise<T | false> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref?.(); // a stuck call's bound keeps no process alive
  });
  return Promise.race([Promise.resolve(call).catch(() => false as const), timeout]).finally(() => clearTimeout(timer));
}

/**
 * Closes an answered review's tabs: those open now at once, then again once every diff it
 * was still opening settled (Open diff's or Edit Proposal's tab appears only then). The
 * editable copy is emptied before its tab is closed, so closing it never asks to save an
 * untitled file. No open starts after the decision settled (showDiff), so none is missed.
 */
async function cleanUp(review: Review): Promise<void> {
  await discardCopy(review);
  const first = bounded(closeTabsShowing(review.uris()), WORKBENCH_MS);
  await Promise.all(review.opens.map((open) => bounded(open, WORKBENCH_MS)));
  await first;
  await bounded(closeTabsShowing(review.uris()), WORKBENCH_MS);
}

/** Empties the review's editable copy, if it made one. */
async function discardCopy(review: Review): Promise<void> {
  const copy = review.editable;
  if (copy && !copy.isClosed && copy.getText() !== "") await bounded(discard(copy), WORKBENCH_MS);
}

/** Closes the diff tabs that show `uris` on either side. */
async function closeTabsShowing(uris: readonly vscode.Uri[]): Promise<boolean> {
  const groups = vscode.window.tabGroups;
  if (!groups) return true;
  const keys = new Set(uris.map((u) => u.toString()));
  const tabs = groups.all
    .flatMap((g) => g.tabs)
    .filter((t) => {
      const input = t.input as { modified?: vscode.Uri; uri?: vscode.Uri } | undefined;
      return (input?.modified && keys.has(input.modified.toString())) || (input?.uri && keys.has(input.uri.toString()));
    });
  return tabs.length > 0 ? groups.close(tabs, true) : true;
}

/** Empties the editable copy so closing it never asks to save an untitled file. */
async function discard(doc: vscode.TextDocument): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.delete(doc.uri, new vscode.Range(new vscode.Position(0, 0), doc.positionAt(doc.getText().length)));
  await vscode.workspace.applyEdit(edit);
}
