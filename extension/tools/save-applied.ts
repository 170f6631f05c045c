import * as vscode from "vscode";
import { diskText } from "./documents";

/**
 * How long a save the workbench is running itself may take to reach the disk once it
 * swallowed ours: its onWillSaveTextDocument participants (VS Code cuts the extension
 * host's off after 1750 ms; other participants, e.g. formatters, have no such cut) and
 * the write, on a loaded machine. Only a save that really failed waits this long.
 */
export const SAVE_LANDS_MS = 10_000;

/**
 * Saves the document an edit (or its undo) was just applied to; true once the disk holds
 * `text`. `TextDocument.save()` answers false without writing when it arrives while the
 * workbench's own save of that file runs its save participants: VS Code drops it as a
 * save "from within a participant". That save is usually an auto save, on by default in
 * code-server and VS Code for the Web (files.autoSave "afterDelay", 1 s), and it writes
 * the same text a moment later. Seen under load in approve-ui: save() false, then
 * onDidSaveTextDocument with the new text ~150 ms after. So a false answer waits, at most
 * SAVE_LANDS_MS, for that save to land, and the disk decides; a buffer still dirty with
 * the same text is saved once more, so no unsaved dot stays behind.
 */
export async function saveApplied(uri: vscode.Uri, text: string): Promise<boolean> {
  if (await (await vscode.workspace.openTextDocument(uri)).save()) return true;
  await savedOrDiskHolds(uri, text, SAVE_LANDS_MS);
  const again = await vscode.workspace.openTextDocument(uri);
  if (again.isDirty && again.getText() === text && (await again.save())) return true;
  return (await diskText(uri)) === text;
}

/** Resolves once the disk holds `text` or the next save of `uri` is reported, or after `ms`. */
async function savedOrDiskHolds(uri: vscode.Uri, text: string, ms: number): Promise<void> {
  const key = uri.toString();
  let done: () => void = () => {};
  const landed = new Promise<void>((resolve) => (done = resolve));
  // Listening before reading the disk: a save that lands in between is not missed.
  const listener = vscode.workspace.onDidSaveTextDocument((doc) => doc.uri.toString() === key && done());
  const timer = setTimeout(done, ms);
  try {
    if ((await diskText(uri)) !== text) await landed;
  } finally {
    clearTimeout(timer);
    listener.dispose();
  }
}
