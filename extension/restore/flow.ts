import * as vscode from "vscode";
import type { LocalSessionRef, SessionRef } from "../../core/protocol";
import type { RestoreOutcome, RestorePreview, RestoreScope, WorkspaceRuntimeApi } from "../../core/runtime";
import type { CheckpointDocuments } from "./checkpoint-documents";
import { showRestorePreview } from "./preview";

export const RESTORE_COMMAND = "downcity.restoreToMessage";
export const UNDO_RESTORE_COMMAND = "downcity.undoRestore";

export interface RestoreDeps {
  runtime(folderKey: string): WorkspaceRuntimeApi;
  docs: CheckpointDocuments;
}

type Restoring = Required<
  Pick<WorkspaceRuntimeApi, "restorePoint" | "previewRestore" | "previewUndoRestore" | "applyRestore">
> &
  WorkspaceRuntimeApi;

function restoring(deps: RestoreDeps, folderKey: string): Restoring {
  const runtime = deps.runtime(folderKey);
  if (!runtime.previewRestore || !runtime.applyRestore || !runtime.restorePoint || !runtime.previewUndoRestore)
    throw new Error("this folder's runtime keeps no checkpoints");
  if (!vscode.workspace.isTrusted) throw new Error("the workspace is in Restricted Mode: Downcity restores no file");
  return runtime as Restoring;
}

const local = (ref: SessionRef): LocalSessionRef => ({ agentId: ref.agentId, sessionId: ref.sessionId });
const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;

/**
 * "Restore to Here" on a message (and "Edit and Resend": the conversation always
 * continues in a fork): the preview, then the restore; a notification offers Undo
 * Restore. Resolves with the fork the conversation continues in, or undefined when the
 * preview was dismissed.
 */
export async function restoreToMessage(
  deps: RestoreDeps,
  ref: SessionRef,
  messageSeq: number,
  mode: "restore" | "resend",
): Promise<{ outcome: RestoreOutcome; fork?: SessionRef } | undefined> {
  const runtime = restoring(deps, ref.folderKey);
  const toSeq = await runtime.restorePoint(local(ref), messageSeq);
  const plan = await runtime.previewRestore(local(ref), toSeq);
  // Files only unless the user widens it; Edit and Resend always continues in a fork.
  const scope: RestoreScope = mode === "resend" ? "files+conversation" : "files";
  const answer = await showRestorePreview(plan, {
    title:
      mode === "resend"
        ? `Edit and Resend: restore ${files(changing(plan))} to that message`
        : `Restore to Here: ${files(changing(plan))}`,
    root: runtime.root,
    docs: deps.docs,
    scope,
    ...(mode === "resend" ? { scopeFixed: true } : {}),
  });
  if (!answer) return undefined;
  const outcome = await runtime.applyRestore(local(ref), plan, { scope: answer.scope, choices: answer.choices });
  tell(outcome, ref);
  const fork = outcome.fork
    ? { folderKey: ref.folderKey, agentId: outcome.fork.agentId, sessionId: outcome.fork.sessionId }
    : undefined;
  return { outcome, ...(fork ? { fork } : {}) };
}

/** Undoes the session's latest restore: at once when every file is as the restore left it, else through the preview. */
export async function undoRestore(deps: RestoreDeps, ref: SessionRef): Promise<RestoreOutcome | undefined> {
  const runtime = restoring(deps, ref.folderKey);
  const { plan, undoOf } = await runtime.previewUndoRestore(local(ref));
  let choices = {};
  if (plan.files.some((f) => f.status !== "restore")) {
    const answer = await showRestorePreview(plan, {
      title: `Undo Restore: ${files(changing(plan))}`,
      root: runtime.root,
      docs: deps.docs,
      scope: "files",
      scopeFixed: true,
    });
    if (!answer) return undefined;
    choices = answer.choices;
  }
  const outcome = await runtime.applyRestore(local(ref), plan, { scope: "files", choices, undoOf });
  void vscode.window.showInformationMessage(`Downcity: Undo Restore put back ${files(outcome.restored.length)}.`);
  return outcome;
}

function changing(plan: RestorePreview): number {
  return plan.files.filter((f) => f.status !== "not-restorable").length;
}

function tell(outcome: RestoreOutcome, ref: SessionRef): void {
  const parts = [`Downcity: restored ${files(outcome.restored.length)}`];
  if (outcome.kept.length) parts.push(`kept yours: ${outcome.kept.join(", ")}`);
  if (outcome.notRestorable.length) parts.push(`not restorable: ${outcome.notRestorable.join(", ")}`);
  if (outcome.fork) parts.push("the conversation continues in a fork");
  void vscode.window.showInformationMessage(`${parts.join("; ")}.`, "Undo Restore").then((choice) => {
    if (choice === "Undo Restore") void vscode.commands.executeCommand(UNDO_RESTORE_COMMAND, ref);
  });
}
