import * as vscode from "vscode";
import { diskText } from "./documents";

/**
 * Saves the document an edit (or its undo) was just applied to; true once the disk holds
 * `text`. `TextDocument.save()` answers false whenever the buffer is still dirty after its
 * save ran, which also happens when the save did write the text but the workbench bumped
 * the buffer's version or swapped its model meanwhile (here, plausibly: the review's diff
 * tab, which held the file's model, closes just before the edit is applied). Under load
 * that read as "applied in the editor but could not be saved" with the file on disk. The
 * disk is what the tool reports on, so it decides; a buffer left dirty with that same text
 * is saved once more, so no unsaved dot stays behind.
 */
export async function saveApplied(uri: vscode.Uri, text: string): Promise<boolean> {
  if (await (await vscode.workspace.openTextDocument(uri)).save()) return true;
  const again = await vscode.workspace.openTextDocument(uri);
  const saved = again.isDirty && again.getText() === text ? await again.save() : false;
  return saved || (await diskText(uri)) === text;
}
