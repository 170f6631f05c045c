import * as vscode from "vscode";
import type { ResolvedAttachment } from "../../core/protocol";
import type { ChatController } from "./controller";
import { relativeToRoot } from "../tools/paths";
import type { VscodeMentions } from "../mentions/resolve";

export const ADD_TO_CHAT = "downcity.addToChat";

/**
 * "Downcity: Add to Chat" (`downcity.addToChat`), in the Explorer's and the editor's
 * context menus: the Explorer passes the clicked file and the whole selection; the editor
 * passes its file, and its selection (when there is one) is attached instead of the whole
 * file. The attachments go to the sidebar chat's composer as chips; nothing is sent.
 */
export function registerAddToChat(
  controller: ChatController,
  mentions: VscodeMentions,
  deliver: (attachments: ResolvedAttachment[]) => Promise<void>,
): vscode.Disposable {
  return vscode.commands.registerCommand(ADD_TO_CHAT, async (clicked?: unknown, selected?: unknown) => {
    const uris = (Array.isArray(selected) && selected.length ? selected : [clicked]).filter(
      (u): u is vscode.Uri => u instanceof vscode.Uri,
    );
    const editor = vscode.window.activeTextEditor;
    const fromEditor =
      uris.length === 0 ||
      (uris.length === 1 && editor?.document.uri.toString() === uris[0]!.toString() && !Array.isArray(selected));
    if (uris.length === 0 && editor) uris.push(editor.document.uri);
    if (uris.length === 0) {
      void vscode.window.showInformationMessage(
        "Add to Chat: select a file in the Explorer or open one in an editor first.",
      );
      return;
    }
    const attachments: ResolvedAttachment[] = [];
    const problems: string[] = [];
    for (const uri of uris) {
      const folder = vscode.workspace.getWorkspaceFolder(uri);
      const chatFolder = folder && controller.folder(folder.uri.toString());
      const rel = chatFolder && relativeToRoot(chatFolder.runtime.root, uri);
      if (!chatFolder || rel === undefined) {
        problems.push(`${uri.fsPath} is not inside a workspace folder`);
        continue;
      }
      const useSelection =
        fromEditor && editor && !editor.selection.isEmpty && editor.document.uri.toString() === uri.toString();
      try {
        attachments.push(
          await mentions.resolve(chatFolder, useSelection ? { kind: "selection" } : { kind: "file", path: rel }),
        );
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    if (problems.length) void vscode.window.showWarningMessage(`Add to Chat: ${problems.join("; ")}`);
    if (attachments.length) await deliver(attachments);
  });
}
