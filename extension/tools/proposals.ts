import * as vscode from "vscode";
import { callKey } from "../../core/protocol/refs";
import type { EditDetails } from "../../core/protocol/tool-details";
import type { EditFileParams, WriteFileParams } from "../../core/tools/definitions";
import type { ToolPath } from "./paths";

/** The URI scheme of Downcity's read-only virtual documents (proposed text, text before an applied edit). */
export const PROPOSAL_SCHEME = "downcity-proposal";

/**
 * One tool call of one session in the folder. Tool call ids are unique only within a session (local servers send
 * call_0, call_1… in every one), so a proposal or an applied edit is known by agent + session + call, never by the
 * call id alone: two sessions of a folder proposing call_0 at once must not meet.
 */
export interface CallRef {
  agentId: string;
  sessionId: string;
  toolCallId: string;
}

/** The store's key of a call: the one encoding (core/protocol/refs.ts), without the folder (one store per folder). */
const keyOf = (call: CallRef): string => callKey(call, call.toolCallId);

/** The call a tool runs for, when it runs for one (the agent loop always gives all three). */
export function callOf(ctx: { agentId?: string; sessionId?: string; toolCallId?: string }): CallRef | undefined {
  const { agentId, sessionId, toolCallId } = ctx;
  return agentId !== undefined && sessionId !== undefined && toolCallId !== undefined
    ? { agentId, sessionId, toolCallId }
    : undefined;
}

/** An edit computed for review: the text it was computed against and the text it proposes. */
export interface Proposal {
  call: CallRef;
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
  call: CallRef;
  file: ToolPath;
  /** The text before the edit; undefined when the edit created the file. */
  before: string | undefined;
  /** The text the edit left, what Undo requires the file to still hold. */
  after: string;
}

const APPLIED_KEPT = 200;

/**
 * Proposals under review and recently applied edits, keyed by their call (`keyOf`), served as
 * read-only documents (`downcity-proposal:/<path>?<side>#<keyOf>`).
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

  uri(call: CallRef, file: ToolPath, side: "proposed" | "before" | "empty"): vscode.Uri {
    return vscode.Uri.from({ scheme: PROPOSAL_SCHEME, path: `/${file.shown}`, query: side, fragment: keyOf(call) });
  }

  set(p: Proposal): void {
    this.proposals.set(keyOf(p.call), p);
    this.changes.fire(this.uri(p.call, p.file, "proposed"));
  }
  get(call: CallRef | undefined): Proposal | undefined {
    return call === undefined ? undefined : this.proposals.get(keyOf(call));
  }
  delete(call: CallRef): void {
    this.proposals.delete(keyOf(call));
  }

  rememberApplied(edit: AppliedEdit): void {
    const key = keyOf(edit.call);
    this.applied.delete(key);
    this.applied.set(key, edit);
    // Oldest first in a Map: drop from the front.
    while (this.applied.size > APPLIED_KEPT) this.applied.delete(this.applied.keys().next().value!);
  }

  /** The applied edit of a session's call, while it is kept (the last 200 of the folder). */
  appliedEdit(call: CallRef): AppliedEdit | undefined {
    return this.applied.get(keyOf(call));
  }

  /** Undo is one step: an undone edit cannot be undone again (its diff link goes too). */
  forgetApplied(call: CallRef): void {
    this.applied.delete(keyOf(call));
  }

  /** Opens the diff of what an applied edit changed (the text before it, against the file now). */
  async showApplied(call: CallRef): Promise<boolean> {
    const applied = this.appliedEdit(call);
    if (!applied) return false;
    const title = `${basename(applied.file.shown)} — Applied by Downcity`;
    await vscode.commands.executeCommand(
      "vscode.diff",
      this.uri(call, applied.file, "before"),
      applied.file.uri,
      title,
    );
    return true;
  }
}

export function basename(shown: string): string {
  return shown.slice(shown.lastIndexOf("/") + 1);
}
