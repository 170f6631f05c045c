import * as vscode from "vscode";
import { EDIT_FILE, WRITE_FILE, type EditFileParams, type WriteFileParams } from "../../core/tools/definitions";
import { planEdit, writeDetails } from "../../core/tools/edit-text";
import { ToolError } from "../../core/tools/errors";
import { plural } from "../../core/tools/text";
import { textOutput, type Tool, type ToolContext, type ToolOutput } from "../../core/tools/types";
import { collectNewErrors, errorSnapshot, type DiagnosticsWatch } from "./diagnostics";
import { diskStamp, editorText, openDocument, sha256 } from "./documents";
import { minimalChange } from "./minimal-change";
import { saveApplied } from "./save-applied";
import { resolveToolPath, type ToolPath } from "./paths";
import { callOf, type Proposal, type ProposalStore } from "./proposals";

export interface EditToolsOptions {
  proposals: ProposalStore;
  diagnostics: DiagnosticsWatch;
  /** Told of every file an edit was applied to (written or not): a .gitignore the agent wrote counts at once. */
  wrote?: (file: ToolPath) => void;
}

type Computed = Omit<Proposal, "call">;

/** What edit_file / write_file would write, computed against the editor's current text. */
export async function computeProposal(
  tool: "edit_file" | "write_file",
  args: EditFileParams | WriteFileParams,
  root: string,
): Promise<Computed> {
  if (!vscode.workspace.isTrusted) throw new ToolError("the workspace is in Restricted Mode: Downcity edits no file");
  const file = await resolveToolPath(root, args.path, true);
  const baseDisk = await diskStamp(file.uri);
  const baseText = await editorText(file.uri, file.shown);
  let text: string;
  let summary: string;
  let details;
  if (tool === "edit_file") {
    if (baseText === undefined)
      throw new ToolError(`${file.shown}: no such file or directory; use write_file to create a new file`);
    // The core's edit rules (matching, CRLF, BOM), against the editor's text.
    ({ text, summary, details } = planEdit(baseText, (args as EditFileParams).edits, file.shown));
  } else {
    text = (args as WriteFileParams).content;
    summary = writeSummary(file.shown, text, baseText === undefined);
    details = writeDetails(file.shown, baseText, text);
  }
  return {
    tool,
    args,
    root,
    file,
    baseText,
    baseHash: baseText === undefined ? undefined : sha256(baseText),
    baseDisk,
    text,
    summary,
    details,
  };
}

/** Why the file no longer is what a proposal was computed against, or undefined when it still is. */
export async function changedSince(p: Pick<Proposal, "file" | "baseHash" | "baseDisk">): Promise<string | undefined> {
  if ((await diskStamp(p.file.uri)) !== p.baseDisk) {
    return p.baseDisk === undefined
      ? `${p.file.shown} was created after the proposal`
      : `${p.file.shown} changed on disk after the proposal`;
  }
  const doc = openDocument(p.file.uri);
  const now = doc ? doc.getText() : await editorText(p.file.uri, p.file.shown);
  const hash = now === undefined ? undefined : sha256(now);
  return hash === p.baseHash ? undefined : `${p.file.shown} changed in the editor after the proposal`;
}

/**
 * Applies a reviewed (or auto-approved) text as one WorkspaceEdit, so it is one undo
 * step, and saves it. Refuses when the file changed since the text was computed.
 */
async function apply(p: Pick<Proposal, "file" | "baseHash" | "baseDisk" | "baseText">, text: string): Promise<void> {
  const changed = await changedSince(p);
  if (changed) throw new ToolError(`${changed}; nothing was written. Read the file again and make the edit anew.`);
  const { uri } = p.file;
  const edit = new vscode.WorkspaceEdit();
  if (p.baseText === undefined) {
    // New files are created through the edit too (undoable; parents created by VS Code).
    edit.createFile(uri, { overwrite: false, ignoreIfExists: false });
    edit.insert(uri, new vscode.Position(0, 0), text);
  } else {
    const doc = await vscode.workspace.openTextDocument(uri);
    const current = doc.getText();
    // Last check right before the edit, without an await in between.
    if (sha256(current) !== p.baseHash)
      throw new ToolError(
        `${p.file.shown} changed in the editor after the proposal; nothing was written. Read it again.`,
      );
    const change = minimalChange(current, text);
    edit.replace(uri, new vscode.Range(doc.positionAt(change.start), doc.positionAt(change.end)), change.text);
  }
  if (!(await vscode.workspace.applyEdit(edit)))
    throw new ToolError(`VS Code did not apply the edit to ${p.file.shown}; nothing was written`);
  if (!(await saveApplied(uri, text)))
    throw new ToolError(`the edit to ${p.file.shown} was applied in the editor but could not be saved`);
}

function writeSummary(shown: string, text: string, created: boolean): string {
  const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  return `${created ? "created" : "overwrote"} ${shown} (${plural(Buffer.byteLength(text), "byte")}, ${plural(lines, "line")})`;
}

function createEditTool<P extends EditFileParams | WriteFileParams>(
  definition: typeof EDIT_FILE | typeof WRITE_FILE,
  options: EditToolsOptions,
): Tool<P> {
  const name = definition.name as "edit_file" | "write_file";
  const { proposals, diagnostics } = options;
  return {
    ...(definition as unknown as Tool<P>),
    async preview(args, ctx) {
      const computed = await computeProposal(name, args, ctx.root);
      const call = callOf(ctx);
      if (call) proposals.set({ ...computed, call });
      return computed.details;
    },
    async execute(args, ctx): Promise<ToolOutput> {
      if (!vscode.workspace.isTrusted)
        throw new ToolError("the workspace is in Restricted Mode: Downcity edits no file");
      // This session's proposal of this call: another session's call of the same id is not it.
      const call = callOf(ctx);
      const reviewed = proposals.get(call);
      // Reviewed: write what the user accepted. Otherwise (auto): compute now and apply at once.
      const p: Computed = reviewed ?? (await computeProposal(name, args, ctx.root));
      const text = reviewed?.accepted ?? p.text;
      ctx.signal.throwIfAborted();
      const before = errorSnapshot(p.file.uri);
      const watch = diagnostics.watch(p.file.uri);
      try {
        await apply(p, text);
      } catch (err) {
        watch.dispose();
        throw err;
      } finally {
        if (call) proposals.delete(call);
        options.wrote?.(p.file);
      }
      if (call) proposals.rememberApplied({ call, file: p.file, before: p.baseText, after: text });
      const lines = [text === p.text ? p.summary : writeSummary(p.file.shown, text, p.baseText === undefined)];
      if (text !== p.text)
        lines.push("The user changed your proposal before accepting it: read the file again before the next edit.");
      const newErrors = await collectNewErrors(watch, p.file, before, ctx.signal);
      if (newErrors) lines.push(newErrors);
      const out = textOutput(lines.join("\n"));
      out.details = text === p.text ? p.details : writeDetails(p.file.shown, p.baseText, text);
      return out;
    },
  };
}

export function createEditorEditTools(options: EditToolsOptions): Tool[] {
  return [createEditTool<EditFileParams>(EDIT_FILE, options), createEditTool<WriteFileParams>(WRITE_FILE, options)];
}

export type { ToolContext, ToolPath };
