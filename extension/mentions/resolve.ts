import * as path from "node:path";
import * as vscode from "vscode";
import {
  fileAttachment,
  folderAttachment,
  fuzzyFilter,
  problemsAttachment,
  selectionAttachment,
  terminalAttachment,
  type Problem,
} from "../../core/runtime/mentions";
import type { Mention, ResolvedAttachment } from "../../core/protocol";
import { resolveInsideRoot } from "../../core/tools/sandbox";
import type { WorkspaceRuntimeApi } from "../../core/runtime";
import { editorExcludes } from "../tools/excludes";
import { relativeToRoot } from "../tools/paths";
import { hostUri } from "./dropped-uri";
import type { TerminalOutputs } from "./terminal-output";

/** How many files the picker scores (a bigger workspace is cut here, said in no result only by its absence). */
const LIST_LIMIT = 20_000;
const PICKS = 30;
const FOLDER_ENTRIES = 500;
const PROBLEMS = 200;
const SEVERITY: Problem["severity"][] = ["error", "warning", "info", "hint"];

/** Thrown with a message the chat shows as is (the mention cannot be attached). */
export class MentionError extends Error {}

/** The folder a mention is resolved in: its key (the folder's URI string) and its runtime's root (the chat's ChatFolder is one). */
export interface MentionFolder {
  key: string;
  runtime: Pick<WorkspaceRuntimeApi, "root">;
}

/**
 * The VS Code side of @-mentions: the workspace's files (what the editor's excludes and
 * .gitignore keep, listed once per folder and refreshed when files are created, deleted
 * or renamed), and each mention resolved from what the editor has: the text as the editor
 * sees it (unsaved buffers included), the Problems panel's diagnostics, the active
 * editor's selection, the active terminal's recent output.
 */
export class VscodeMentions implements vscode.Disposable {
  private readonly lists = new Map<string, Promise<string[]>>();
  private readonly subscriptions: vscode.Disposable[];

  constructor(private readonly terminals: TerminalOutputs) {
    const drop = () => this.lists.clear();
    this.subscriptions = [
      vscode.workspace.onDidCreateFiles(drop),
      vscode.workspace.onDidDeleteFiles(drop),
      vscode.workspace.onDidRenameFiles(drop),
    ];
  }

  async search(folder: MentionFolder, kind: "file" | "folder", query: string): Promise<string[]> {
    const files = await this.files(folder);
    if (kind === "file") return fuzzyFilter(files, query, PICKS);
    const folders = new Set<string>();
    for (const file of files)
      for (let i = file.indexOf("/"); i > 0; i = file.indexOf("/", i + 1)) folders.add(file.slice(0, i));
    return fuzzyFilter([...folders], query, PICKS);
  }

  async resolve(folder: MentionFolder, mention: Mention): Promise<ResolvedAttachment> {
    const root = folder.runtime.root;
    switch (mention.kind) {
      case "file": {
        const rel = await this.inside(root, mention.path);
        const uri = vscode.Uri.file(path.join(root, rel));
        const stat = await vscode.workspace.fs.stat(uri).then(undefined, () => undefined);
        if (!stat) throw new MentionError(`${rel} does not exist`);
        if (stat.type & vscode.FileType.Directory) return this.resolve(folder, { kind: "folder", path: rel });
        return fileAttachment(rel, await readText(uri), mention.range);
      }
      case "folder": {
        const rel = mention.path ? await this.inside(root, mention.path) : "";
        const entries = await vscode.workspace.fs
          .readDirectory(vscode.Uri.file(path.join(root, rel)))
          .then(undefined, () => {
            throw new MentionError(`${rel || "."} is not a folder of the workspace`);
          });
        const kept = entries.filter(([name]) => name !== ".git" && name !== ".downcity");
        return folderAttachment(
          rel,
          kept
            .slice(0, FOLDER_ENTRIES)
            .map(([name, type]) => ({ name, directory: (type & vscode.FileType.Directory) !== 0 })),
          Math.max(0, kept.length - FOLDER_ENTRIES),
        );
      }
      case "problems": {
        const problems: Problem[] = [];
        for (const [uri, list] of vscode.languages.getDiagnostics()) {
          const rel = relativeToRoot(root, uri);
          if (rel === undefined) continue;
          for (const d of list)
            problems.push({
              path: rel,
              line: d.range.start.line + 1,
              column: d.range.start.character + 1,
              severity: SEVERITY[d.severity] ?? "info",
              message: d.message,
              ...(d.source ? { source: d.source } : {}),
            });
        }
        problems.sort(
          (a, b) =>
            SEVERITY.indexOf(a.severity) - SEVERITY.indexOf(b.severity) ||
            (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line),
        );
        return problemsAttachment(problems.slice(0, PROBLEMS), Math.max(0, problems.length - PROBLEMS));
      }
      case "selection": {
        // The chat has focus when the mention is picked: the last text editor is the one meant.
        const editor = vscode.window.activeTextEditor ?? vscode.window.visibleTextEditors[0];
        if (!editor || editor.selection.isEmpty)
          throw new MentionError("nothing is selected in an editor: select some text first");
        const rel = relativeToRoot(root, editor.document.uri) ?? path.basename(editor.document.uri.path);
        const s = editor.selection;
        // A selection ending at column 0 of a line does not include that line.
        const endLine = s.end.character === 0 && s.end.line > s.start.line ? s.end.line : s.end.line + 1;
        return selectionAttachment(rel, { start: s.start.line + 1, end: endLine }, editor.document.getText(s));
      }
      case "terminal": {
        const active = await this.terminals.active();
        if ("unavailable" in active) throw new MentionError(`@terminal is unavailable: ${active.unavailable}`);
        return terminalAttachment(active.name, active.output, active.command);
      }
    }
  }

  /** A mention's path (workspace-relative, or a dropped file's URI) as a path inside the folder. */
  private async inside(root: string, raw: string): Promise<string> {
    let candidate = raw;
    if (/^[a-z][a-z0-9+.-]+:/i.test(raw)) {
      const rel = relativeToRoot(root, hostUri(raw, vscode.env.remoteName));
      if (rel === undefined) throw new MentionError(`${raw} is not a file of this workspace folder`);
      candidate = rel;
    }
    try {
      const abs = await resolveInsideRoot(root, candidate, { forWrite: false });
      return path.relative(root, abs).split(path.sep).join("/");
    } catch (error) {
      throw new MentionError((error as Error).message);
    }
  }

  private files(folder: MentionFolder): Promise<string[]> {
    let list = this.lists.get(folder.key);
    if (!list) {
      list = this.listFiles(folder);
      this.lists.set(folder.key, list);
      list.catch(() => this.lists.delete(folder.key));
    }
    return list;
  }

  private async listFiles(folder: MentionFolder): Promise<string[]> {
    const root = folder.runtime.root;
    const workspaceFolder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(folder.key));
    const excludes = workspaceFolder ? await editorExcludes(workspaceFolder, root) : undefined;
    const found = await vscode.workspace.findFiles(
      new vscode.RelativePattern(vscode.Uri.file(root), "**/*"),
      excludes?.glob,
      LIST_LIMIT,
    );
    const rels: string[] = [];
    for (const uri of found) {
      const rel = relativeToRoot(root, uri);
      if (rel !== undefined && (!excludes || excludes.keeps(rel))) rels.push(rel);
    }
    return rels.sort();
  }

  dispose(): void {
    this.subscriptions.forEach((s) => s.dispose());
  }
}

async function readText(uri: vscode.Uri): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  const bytes = await vscode.workspace.fs.readFile(uri);
  if (bytes.subarray(0, 8192).includes(0))
    throw new MentionError(`${uri.path.split("/").pop()} is a binary file: it cannot be attached as text`);
  return new TextDecoder().decode(bytes);
}
