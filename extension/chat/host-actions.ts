import type { SessionRef, EditDetails, Mention, ResolvedAttachment } from "../../core/protocol";
import type { ChatFolder } from "./folders";

/** The editor-side effects a chat asks for; VS Code implements them (`vscode-actions.ts`), tests record them. */
export interface HostActions {
  /** Confirms and opens an external link, or opens a workspace path in the editor. */
  openLink(folder: ChatFolder, href: string): Promise<boolean>;
  /** The edit's diff in VS Code's diff editor (or the file when the diff is not known). */
  openDiff(folder: ChatFolder, details: EditDetails | undefined, toolCallId: string): Promise<void>;
  /** Shows an edit's open review again (its diff was closed before the answer); false when none waits. */
  showReview?(ref: SessionRef, toolCallId: string): Promise<boolean>;
  /** Undoes an applied edit of a session's call; rejects with why when it cannot. Returns the file's path. */
  undoEdit(ref: SessionRef, toolCallId: string): Promise<{ path: string }>;
  copy(text: string): Promise<void>;
  insertAtCursor(text: string): Promise<boolean>;
  runCommand(command: string, ...args: unknown[]): Promise<void>;
  /** Workspace-relative paths matching a quick search (for `@` attachments). */
  searchFiles(folder: ChatFolder, query: string): Promise<string[]>;
  /** The text of a workspace file (confined to the folder, size-capped), for an attachment. */
  readAttachment(folder: ChatFolder, path: string): Promise<string>;
  /** The @-menu's matches: workspace files (fuzzy) or folders, workspace-relative. */
  searchMentions(folder: ChatFolder, kind: "file" | "folder", query: string): Promise<string[]>;
  /** A mention as the attachment it sends (rejects with why when it is unavailable: no selection, no shell integration…). */
  resolveMention(folder: ChatFolder, mention: Mention): Promise<ResolvedAttachment>;
  exportSession(ref: SessionRef): Promise<void>;
  /** "Restore to Here" / "Edit and Resend" (extension/restore): undefined when the preview was dismissed. */
  restoreToMessage?(ref: SessionRef, seq: number, resend: boolean): Promise<{ fork?: SessionRef } | undefined>;
}
