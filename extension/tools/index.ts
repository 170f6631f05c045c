import * as vscode from "vscode";
import type { RunCommandOptions } from "../../core/tools/node/run-command";
import type { LocalSessionRef } from "../../core/protocol";
import type { Tool } from "../../core/tools/types";
import { createCodeIntelTools } from "./code-intel";
import { createDiagnosticsTool, diagnosticsWatch } from "./diagnostics";
import { createEditorEditTools } from "./edit-tools";
import type { FindFiles } from "./excludes";
import { GitignoreDiscovery } from "./gitignore-discovery";
import { ProposalStore, type CallRef } from "./proposals";
import { createEditorListDirTool, createEditorReadFileTool } from "./read-tools";
import { createEditorRunCommandTool } from "./run-command";
import { createEditorGlobTool, createEditorGrepTool } from "./search-tools";
import { CommandTerminals } from "./terminals";
import { undoAppliedEdit } from "./undo-edit";

export { createApprover, approvalSummary, type ApproverOptions } from "./approvals";
export type { ChatApprovalSink } from "../approval/chat-sink";
export type { Prompts } from "./review";
export {
  EditReviews,
  ACCEPT_EDIT_COMMAND,
  REJECT_EDIT_COMMAND,
  EDIT_PROPOSAL_COMMAND,
  REVIEW_PENDING_CONTEXT,
  REVIEW_EDITING_CONTEXT,
} from "./edit-reviews";
export { PendingDecisions, CANCELLED, type DecisionKey, type PendingDecision } from "../approval/decisions";
export { PROPOSAL_SCHEME, ProposalStore, type CallRef } from "./proposals";

export interface EditorToolsOptions {
  folder: vscode.WorkspaceFolder;
  /** Realpath of the folder: the sandbox root. */
  root: string;
  /** The name a session's terminal shows ("Downcity: <label>"). */
  sessionLabel?: (sessionId: string) => string;
  /** Bound on waiting for a language server's diagnostics after an edit (2 s) and the quiet period after an update (300 ms). */
  diagnosticsWaitMs?: number;
  diagnosticsQuietMs?: number;
  command?: RunCommandOptions;
  /** VS Code's install folder, where its ripgrep is (default `vscode.env.appRoot`). */
  appRoot?: string;
  /** `workspace.findFiles` for glob and grep, or a stand-in that counts (tests). */
  findFiles?: FindFiles;
}

export interface EditorTools {
  tools: Tool[];
  /** Edit proposals under review; give it to `createApprover` so edits are reviewed in a diff. */
  proposals: ProposalStore;
  /** Opens the diff of a session's applied edit. */
  showAppliedDiff(call: CallRef): Promise<boolean>;
  /** Undoes a session's applied edit (one step); throws, changing nothing, when the file changed since. Returns its path. */
  undoEdit(call: CallRef): Promise<{ path: string }>;
  /** Stops a session's commands and closes its terminal. */
  disposeSession(ref: LocalSessionRef): Promise<void>;
  /** Stops every command (their process groups die) and closes every terminal. */
  dispose(): Promise<void>;
}

/** Command that opens an applied edit's diff: `downcity.tools.showAppliedDiff(ref: SessionRef, toolCallId)` → shown. */
export const SHOW_APPLIED_DIFF_COMMAND = "downcity.tools.showAppliedDiff";
export { UNDO_EDIT_COMMAND } from "./undo-edit";

/**
 * The editor-backed tools of one workspace folder: the core's tool names and parameters,
 * the core's sandbox, and what only the editor has (unsaved buffers, reviewed undoable
 * edits, diagnostics, language servers, visible terminals).
 */
export function createEditorTools(options: EditorToolsOptions): EditorTools {
  const proposals = new ProposalStore();
  // The id's first 8 characters after its "session-" prefix, which every id shares ("Downcity: session-" named them all).
  const terminals = new CommandTerminals(options.sessionLabel ?? ((id) => id.replace(/^session-/, "").slice(0, 8)));
  const diagnostics = diagnosticsWatch({
    waitMs: options.diagnosticsWaitMs ?? 2_000,
    quietMs: options.diagnosticsQuietMs ?? 300,
  });
  // The command is registered once for every folder's tool set (FolderTools): a second registration throws.
  // Where the folder's nested .gitignore files are, for glob and grep; our writes of one drop it at once.
  const discovery = new GitignoreDiscovery(options.folder);
  const registrations = [proposals.register(), discovery];
  const search = { discovery, ...(options.findFiles ? { findFiles: options.findFiles } : {}) };
  const wrote = (file: { abs: string }) => discovery.wrote(file.abs);
  const tools: Tool[] = [
    createEditorReadFileTool(),
    createEditorListDirTool(),
    createEditorGlobTool(options.folder, search),
    createEditorGrepTool(options.appRoot ?? vscode.env.appRoot, options.folder, search),
    ...createEditorEditTools({ proposals, diagnostics, wrote }),
    createEditorRunCommandTool(terminals, options.command),
    createDiagnosticsTool(),
    ...createCodeIntelTools(),
  ];
  return {
    tools,
    proposals,
    showAppliedDiff: (call) => proposals.showApplied(call),
    async undoEdit(call) {
      const { file } = await undoAppliedEdit(proposals, call);
      wrote(file);
      return { path: file.shown };
    },
    disposeSession: (ref) => terminals.disposeSession(ref),
    async dispose() {
      for (const r of registrations) r.dispose();
      await terminals.dispose();
    },
  };
}
