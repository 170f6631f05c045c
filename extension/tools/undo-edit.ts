import * as vscode from "vscode";
import { ToolError } from "../../core/tools/errors";
import { diskText, editorText } from "./documents";
import { saveApplied } from "./save-applied";
import { minimalChange } from "./minimal-change";
import type { AppliedEdit, CallRef, ProposalStore } from "./proposals";

/** Command that undoes an applied edit: `downcity.tools.undoEdit(ref: SessionRef, toolCallId)` → `{ path }`. */
export const UNDO_EDIT_COMMAND = "downcity.tools.undoEdit";

/**
 * Undoes one applied edit: back to the text before it, through a WorkspaceEdit like the
 * edit itself (so Ctrl+Z in the editor can redo it) and saved; a file the edit created
 * is deleted. Refuses, changing nothing, when the file (buffer or disk) no longer holds
 * what the edit left. One step: the edit is forgotten once undone.
 */
export async function undoAppliedEdit(store: ProposalStore, call: CallRef): Promise<AppliedEdit> {
  if (!vscode.workspace.isTrusted) throw new ToolError("the workspace is in Restricted Mode: Downcity edits no file");
  const applied = store.appliedEdit(call);
  if (!applied)
    throw new ToolError(
      "this edit cannot be undone here: it was undone already, or the window was reloaded since it was applied",
    );
  const { file } = applied;
  const [now, disk] = [await editorText(file.uri, file.shown), await diskText(file.uri)];
  if (now !== applied.after || disk !== applied.after) {
    throw new ToolError(
      `${file.shown} changed since the edit${now !== disk ? " (it has unsaved changes)" : ""}; nothing was undone`,
    );
  }
  const edit = new vscode.WorkspaceEdit();
  if (applied.before === undefined) {
    edit.deleteFile(file.uri, { ignoreIfNotExists: false });
  } else {
    const doc = await vscode.workspace.openTextDocument(file.uri);
    const change = minimalChange(doc.getText(), applied.before);
    edit.replace(file.uri, new vscode.Range(doc.positionAt(change.start), doc.positionAt(change.end)), change.text);
  }
  if (!(await vscode.workspace.applyEdit(edit)))
    throw new ToolError(`VS Code did not undo the edit of ${file.shown}; nothing was changed`);
  if (applied.before !== undefined && !(await saveApplied(file.uri, applied.before))) {
    throw new ToolError(`the undo of ${file.shown} was applied in the editor but could not be saved`);
  }
  store.forgetApplied(call);
  return applied;
}
