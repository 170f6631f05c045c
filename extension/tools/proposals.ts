import * as vscode from "vscode";
import type { EditDetails } from "../../core/protocol/tool-details";
import type { EditFileParams, WriteFileParams } from "../../core/tools/definitions";
import type { ToolPath } from "./paths";

/** The URI scheme of Downcity's read-only virtual documents (proposed text, text before an applied edit). */
export const PROPOSAL_SCHEME = "downcity-proposal";

/** An edit computed for review: the text it was computed against and the text it proposes. */
export interface Proposal {
  toolCallId: string;
  tool: "edit_file" | "write_file";
  args: EditFileParams | WriteFileParams;
  /** The workspace root the path was resolved in. */
  root: string;
  file: ToolPath;
  /** The editor's text the proposal was computed against; undefined for a new file. */
  baseText: string | undefined;
  baseHash: string | undefined;
  /** The file's mtime and size on disk when proposed (undefined: it did not exist). */
  baseDisk: string | undefined;
  text: string;
  /** What the model is told when it is applied as proposed. */
  summary: string;
  details: EditDetails;
  /** What the user accepted (the proposal, or their edited version of it). */
  accepted?: string;
}

/** What an applied edit changed, kept so the chat's link can open its diff and its Undo can revert it. */
export interface AppliedEdit {
  toolCallId: string;
  /** The session whose call it was: tool call ids repeat across sessions (local servers send call_0 every turn). */
  sessionId: string | undefined;
  file: ToolPath;
  /** The text before the edit; undefined when the edit created the file. */
  before: string | undefined;
  /** The text the edit left, what Undo requires the file to still hold. */
  after: string;
}

const APPLIED_KEPT = 200;

/**
 * Proposals under review and recently applied edits, keyed by tool call id, served as
 * read-only documents (`downcity-proposal:/<path>?<side>#<toolCallId>`).
 */
export class ProposalStore implements vscode.TextDocumentContentProvider {
  private readonly proposals = new Map<string, Proposal>();
  private readonly applied = new Map<string, AppliedEdit>();
  private readonly changes = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changes.event;

  register(): vscode.Disposable {
    const provider = vscode.workspace.registerTextDocumentContentProvider(PROPOSAL_SCHEME, this);
    return new vscode.Disposable(() => {
      provider.dispose();
      this.changes.dispose();
    });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = uri.fragment;
    switch (uri.query) {
      case "proposed":
        return this.proposals.get(id)?.text ?? "";
      case "before":
        return this.applied.get(id)?.before ?? this.proposals.get(id)?.baseText ?? "";
      default:
        return "";
    }
  }

  uri(toolCallId: string, file: ToolPath, side: "proposed" | "before" | "empty"): vscode.Uri {
    return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${file.shown}`, query: side, fragment: toolCallId });
  }

  set(p: Proposal): void {
    this.proposals.set(p.toolCallId, p);
    this.changes.fire(this.uri(p.toolCallId, p.file, "proposed"));
  }
  get(toolCallId: string | undefined): Proposal | undefined {
    return toolCallId === undefined ? undefined : this.proposals.get(toolCallId);
  }
  delete(toolCallId: string): void {
    this.proposals.delete(toolCallId);
  }

  rememberApplied(edit: AppliedEdit): void {
    const { toolCallId } = edit;
    this.applied.delete(toolCallId);
    this.applied.set(toolCallId, edit);
    // Oldest first in a Map: drop from the front.
    while (this.applied.size > APPLIED_KEPT) this.applied.delete(this.applied.keys().next().value!);
  }

  /** The applied edit of a session's call, while it is kept (the last 200 of the folder). */
  appliedEdit(toolCallId: string, sessionId: string): AppliedEdit | undefined {
    const edit = this.applied.get(toolCallId);
    return edit && (edit.sessionId === undefined || edit.sessionId === sessionId) ? edit : undefined;
  }

  /** Undo is one step: an undone edit cannot be undone again (its diff link goes too). */
  forgetApplied(toolCallId: string): void {
    this.applied.delete(toolCallId);
  }

  /** Opens the diff of what an applied edit changed (the text before it, against the file now). */
  async showApplied(toolCallId: string): Promise<boolean> {
    const applied = this.applied.get(toolCallId);
    if (!applied) return false;
    const title = `${basename(applied.file.shown)} — Applied by Downcity`;
    await vscode.commands.executeCommand(
      "vscode.diff",
      this.uri(toolCallId, applied.file, "before"),
      applied.file.uri,
      title,
    );
    return true;
  }
}

export function basename(shown: string): string {
  return shown.slice(shown.lastIndexOf("/") + 1);
}
