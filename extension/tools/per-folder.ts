import { realpathSync } from "node:fs";
import * as vscode from "vscode";
import type { Tool } from "../../core/tools/types";
import type { FolderHooks } from "../folders/registry";
import type { PendingDecisions } from "../approval/decisions";
import type { ChatApprovalSink } from "../approval/chat-sink";
import { createApprover } from "./approvals";
import { EditReviews } from "./edit-reviews";
import { createEditorTools, SHOW_APPLIED_DIFF_COMMAND, type EditorTools } from "./index";
import { UNDO_EDIT_COMMAND } from "./undo-edit";

/**
 * The runtimes' hooks for editor-backed tools: one tool set per workspace folder
 * (created on its first run, disposed when the folder goes or the extension
 * deactivates, so its commands' process groups die with it) and one approver that asks
 * the chat first, then the diff review or a notification.
 */
export class FolderTools implements vscode.Disposable {
  private readonly byFolder = new Map<string, EditorTools>();
  private readonly subscriptions: vscode.Disposable[];
  /** The window's edit reviews: one set of title-bar commands for every folder. */
  private readonly reviews = new EditReviews();

  constructor(
    private readonly decisions: PendingDecisions,
    private readonly chat: () => ChatApprovalSink | undefined,
  ) {
    this.subscriptions = [
      this.reviews.register(),
      vscode.workspace.onDidChangeWorkspaceFolders((e) => {
        for (const folder of e.removed) void this.release(folder.uri.toString());
      }),
      // One command for every folder (each folder registering its own threw at the second folder's first run).
      vscode.commands.registerCommand(SHOW_APPLIED_DIFF_COMMAND, async (toolCallId: string) => {
        for (const tools of this.byFolder.values()) if (await tools.showAppliedDiff(toolCallId)) return true;
        return false;
      }),
      vscode.commands.registerCommand(
        UNDO_EDIT_COMMAND,
        async (folderKey: string, sessionId: string, toolCallId: string) => {
          const tools = this.byFolder.get(folderKey);
          if (!tools) throw new Error("this edit cannot be undone here: it was applied before the window was reloaded");
          return tools.undoEdit(toolCallId, sessionId);
        },
      ),
    ];
  }

  readonly hooks: FolderHooks = {
    tools: (folder) => this.forFolder(folder).tools as readonly Tool[],
    approve: (folder, request, signal) => {
      const tools = this.forFolder(folder);
      const options = {
        folderKey: folder.uri.toString(),
        proposals: tools.proposals,
        reviews: this.reviews,
        decisions: this.decisions,
        chat: this.chat,
      };
      return createApprover(options)(request, signal);
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
