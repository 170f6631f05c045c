import { realpathSync } from "node:fs";
import * as vscode from "vscode";
import type { Tool } from "../../core/tools/types";
import type { RuntimeHooks } from "../runtime/runtimes";
import { createApprover, type ChatApprovalSink } from "./approvals";
import { createEditorTools, SHOW_APPLIED_DIFF_COMMAND, type EditorTools } from "./index";

/**
 * The runtimes' hooks for editor-backed tools: one tool set per workspace folder
 * (created on its first run, disposed when the folder goes or the extension
 * deactivates, so its commands' process groups die with it) and one approver that asks
 * the chat first, then the diff review or a notification.
 */
export class FolderTools implements vscode.Disposable {
  private readonly byFolder = new Map<string, EditorTools>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly chat: () => ChatApprovalSink | undefined) {
    this.subscriptions = [
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const folder of e.removed) void this.release(folder.uri.toString());
      }),
      // One command for every folder (each folder registering its own threw at the second folder's first run).
      vscode.commands.registerCommand(SHOW_APPLIED_DIFF_COMMAND, async (toolCallId: string) => {
        for (const tools of this.byFolder.values()) if (await tools.showAppliedDiff(toolCallId)) return true;
        return false;
      }),
    ];
  }

  readonly hooks: RuntimeHooks = {
    tools: (folder) => this.forFolder(folder).tools as readonly Tool[],
    approve: (folder, request, signal) => {
      const tools = this.forFolder(folder);
      return createApprover({ proposals: tools.proposals, chat: this.chat })(request, signal);
    },
  };

  private forFolder(folder: vscode.WorkspaceFolder): EditorTools {
    const key = folder.uri.toString();
    let tools = this.byFolder.get(key);
    if (!tools) {
      tools = createEditorTools({ folder, root: realpathSync(folder.uri.fsPath) });
      this.byFolder.set(key, tools);
    }
    return tools;
  }

  private async release(key: string): Promise<void> {
    const tools = this.byFolder.get(key);
    this.byFolder.delete(key);
    await tools?.dispose();
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
    for (const key of [...this.byFolder.keys()]) void this.release(key);
  }
}
