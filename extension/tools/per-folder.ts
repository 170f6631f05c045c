import * as vscode from "vscode";
import type { SessionRef } from "../../core/protocol";
import type { SessionChange } from "../../core/runtime";
import type { Tool } from "../../core/tools/types";
import type { FolderToolSet } from "../folders/registry";
import type { PendingDecisions } from "../approval/decisions";
import type { ChatApprovalSink } from "../approval/chat-sink";
import { createApprover } from "./approvals";
import { EditReviews } from "./edit-reviews";
import { createEditorTools, SHOW_APPLIED_DIFF_COMMAND, type EditorTools } from "./index";
import { UNDO_EDIT_COMMAND } from "./undo-edit";

/**
 * The editor-backed tools of every folder: `open` makes a folder's tool set for its record in the folder registry
 * (the tools themselves are made at its first run; the registry disposes them with the folder, so its commands'
 * process groups die with it), with one approver that asks the chat first, then the diff review or a notification.
 * The window-wide commands (show an applied diff, undo an edit) find the folder's tools among the open ones.
 */
export class FolderTools implements vscode.Disposable {
  /** The tool sets the registry's records hold now (each leaves when its record disposes it). */
  private readonly open = new Map<string, EditorTools>();
  private readonly subscriptions: vscode.Disposable[];
  /** The window's edit reviews: one set of title-bar commands for every folder. */
  private readonly reviews = new EditReviews();

  constructor(
    private readonly decisions: PendingDecisions,
    private readonly chat: () => ChatApprovalSink | undefined,
  ) {
    this.subscriptions = [
      this.reviews.register(),
      // One command for every folder (each folder registering its own threw at the second folder's first run).
      // Both name the call by its session: tool call ids repeat across sessions and folders.
      vscode.commands.registerCommand(SHOW_APPLIED_DIFF_COMMAND, async (ref: SessionRef, toolCallId: string) => {
        const tools = this.open.get(ref.folderKey);
        return tools ? tools.showAppliedDiff({ agentId: ref.agentId, sessionId: ref.sessionId, toolCallId }) : false;
      }),
      vscode.commands.registerCommand(UNDO_EDIT_COMMAND, async (ref: SessionRef, toolCallId: string) => {
        const tools = this.open.get(ref.folderKey);
        if (!tools) throw new Error("this edit cannot be undone here: it was applied before the window was reloaded");
        return tools.undoEdit({ agentId: ref.agentId, sessionId: ref.sessionId, toolCallId });
      }),
    ];
  }

  /** The registry's `tools` hook: the folder's tool set, its editor tools made at the first run that asks. */
  readonly forFolder = (folder: vscode.WorkspaceFolder, root: string): FolderToolSet => {
    const key = folder.uri.toString();
    let made: EditorTools | undefined;
    let disposed = false;
    const tools = (): EditorTools => {
      if (disposed) throw new Error(`${folder.name} is no longer open`);
      if (!made) {
        made = createEditorTools({ folder, root });
        this.open.set(key, made);
      }
      return made;
    };
    return {
      tools: () => tools().tools as readonly Tool[],
      approve: (request, signal) => {
        const options = {
          folderKey: key,
          proposals: tools().proposals,
          reviews: this.reviews,
          decisions: this.decisions,
          chat: this.chat,
        };
        return createApprover(options)(request, signal);
      },
      dispose: async () => {
        disposed = true;
        if (made && this.open.get(key) === made) this.open.delete(key);
        await made?.dispose();
      },
    };
  };

  /**
   * A session of a folder was deleted or archived (by this window or another): its commands stop (their process
   * groups die) and its terminal closes. The runtime refuses either while its own turn runs, so this mostly closes
   * a finished command's terminal, which would otherwise stay in the panel, named after a session that is gone.
   */
  sessionChanged(folderKey: string, change: SessionChange): void {
    const ended = change.kind === "removed" || (change.kind === "updated" && change.item?.archived === true);
    const tools = ended ? this.open.get(folderKey) : undefined;
    void tools?.disposeSession({ agentId: change.agentId, sessionId: change.sessionId }).catch(() => undefined);
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
  }
}
