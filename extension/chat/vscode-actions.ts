import * as path from "node:path";
import * as vscode from "vscode";
import type { SessionRef, EditDetails, Mention, ResolvedAttachment } from "../../core/protocol";
import type { VscodeMentions } from "../mentions/resolve";
import { SHOW_REVIEW_COMMAND } from "../tools/edit-reviews";
import { UNDO_EDIT_COMMAND } from "../tools/undo-edit";
import { applyUnifiedDiff } from "./diff-sides";
import { RESTORE_COMMAND } from "../restore/flow";
import type { HostActions } from "./host-actions";
import type { ChatFolder } from "./folders";

const ATTACHMENT_LIMIT = 256 * 1024;
export const DIFF_SCHEME = "downcity-diff";

/** Resolves a workspace-relative path inside the folder, or undefined when it escapes it. */
export function insideFolder(root: string, relative: string): string | undefined {
  const target = path.resolve(root, relative);
  return target === root || target.startsWith(root + path.sep) ? target : undefined;
}

/** Virtual documents for the "before" / "after" side of a diff the chat opens. */
export class DiffDocuments implements vscode.TextDocumentContentProvider {
  private readonly docs = new Map<string, string>();
  private next = 0;
  put(name: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: DIFF_SCHEME, path: `/${this.next++}/${name}` });
    this.docs.set(uri.toString(), text);
    // Bounded: only the last diffs opened stay readable.
    if (this.docs.size > 50) this.docs.delete(this.docs.keys().next().value!);
    return uri;
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.docs.get(uri.toString()) ?? "";
  }
}

export class VscodeHostActions implements HostActions {
  constructor(
    private readonly diffs: DiffDocuments,
    private readonly mentions: VscodeMentions,
  ) {}

  searchMentions(folder: ChatFolder, kind: "file" | "folder", query: string): Promise<string[]> {
    return this.mentions.search(folder, kind, query);
  }

  resolveMention(folder: ChatFolder, mention: Mention): Promise<ResolvedAttachment> {
    return this.mentions.resolve(folder, mention);
  }

  async openLink(folder: ChatFolder, href: string): Promise<boolean> {
    if (/^(https?:|mailto:)/i.test(href)) {
      const open = "Open";
      const choice = await vscode.window.showWarningMessage(
        `Open this link from the chat?\n\n${href}`,
        { modal: true },
        open,
      );
      if (choice !== open) return false;
      return vscode.env.openExternal(vscode.Uri.parse(href));
    }
    // Anything else with a scheme (javascript:, data:, command:, vscode:) is never followed.
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) && !/^file:/i.test(href)) return false;
    const [raw = "", fragment] = href.replace(/^file:\/\//i, "").split("#");
    const target = insideFolder(folder.runtime.root, decodeURIComponent(raw));
    if (!target) return false;
    const line = /^L(\d+)/.exec(fragment ?? "")?.[1];
    const options: vscode.TextDocumentShowOptions = {};
    if (line) options.selection = new vscode.Range(Number(line) - 1, 0, Number(line) - 1, 0);
    await vscode.window.showTextDocument(vscode.Uri.file(target), options);
    return true;
  }

  async undoEdit(ref: SessionRef, toolCallId: string): Promise<{ path: string }> {
    // The editor tools own what an applied edit changed; they register this command per window.
    const undone = (await vscode.commands.executeCommand(UNDO_EDIT_COMMAND, ref, toolCallId)) as
      { path: string } | undefined;
    if (!undone) throw new Error("this edit cannot be undone here: its folder's tools are not running in this window");
    return undone;
  }

  async showReview(ref: SessionRef, toolCallId: string): Promise<boolean> {
    return Boolean(await vscode.commands.executeCommand(SHOW_REVIEW_COMMAND, { ...ref, toolCallId }));
  }

  async openDiff(folder: ChatFolder, details: EditDetails | undefined, toolCallId: string): Promise<void> {
    if (!details) throw new Error(`no diff known for tool call ${toolCallId}`);
    const target = insideFolder(folder.runtime.root, details.path);
    if (!target) throw new Error(`${details.path} is outside the folder`);
    const fileUri = vscode.Uri.file(target);
    const now = details.newFile ? "" : await readText(fileUri).catch(() => "");
    const name = path.basename(details.path);
    // Applied already → the file is the "after"; still pending → it is the "before".
    const before = applyUnifiedDiff(now, details.diff, true);
    if (before !== undefined && applyUnifiedDiff(before, details.diff) === now) {
      await vscode.commands.executeCommand(
        "vscode.diff",
        this.diffs.put(name, before),
        fileUri,
        `${details.path} (agent edit)`,
      );
      return;
    }
    const after = applyUnifiedDiff(now, details.diff) ?? details.diff;
    await vscode.commands.executeCommand(
      "vscode.diff",
      fileUri,
      this.diffs.put(name, after),
      `${details.path} (proposed edit)`,
    );
  }

  async copy(text: string): Promise<void> {
    await vscode.env.clipboard.writeText(text);
  }

  async insertAtCursor(text: string): Promise<boolean> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) return false;
    return editor.edit((edit) => editor.selections.forEach((s) => edit.replace(s, text)));
  }

  async restoreToMessage(ref: SessionRef, seq: number, resend: boolean): Promise<{ fork?: SessionRef } | undefined> {
    return vscode.commands.executeCommand<{ fork?: SessionRef } | undefined>(
      RESTORE_COMMAND,
      ref,
      seq,
      resend ? "resend" : "restore",
    );
  }

  async runCommand(command: string, ...args: unknown[]): Promise<void> {
    await vscode.commands.executeCommand(command, ...args);
  }

  async searchFiles(folder: ChatFolder, query: string): Promise<string[]> {
    const escaped = query.replace(/[*?[\]{}!]/g, "");
    const pattern = new vscode.RelativePattern(
      vscode.Uri.file(folder.runtime.root),
      escaped ? `**/*${escaped}*` : "**/*",
    );
    const found = await vscode.workspace.findFiles(pattern, undefined, 50);
    return found.map((uri) => path.relative(folder.runtime.root, uri.fsPath).split(path.sep).join("/")).sort();
  }

  async readAttachment(folder: ChatFolder, relative: string): Promise<string> {
    const target = insideFolder(folder.runtime.root, relative);
    if (!target) throw new Error(`${relative} is outside the folder`);
    const text = await readText(vscode.Uri.file(target));
    return text.length > ATTACHMENT_LIMIT ? `${text.slice(0, ATTACHMENT_LIMIT)}\n… (truncated)` : text;
  }

  async exportSession(ref: SessionRef): Promise<void> {
    await vscode.commands.executeCommand("downcity.exportSession", ref);
  }
}

async function readText(uri: vscode.Uri): Promise<string> {
  // An open editor's unsaved text is what the user sees; fall back to disk.
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
}
