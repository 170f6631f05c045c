import * as vscode from "vscode";
import type { DamagedFolder } from "../../core/runtime";
import type { OpenFolder } from "../folders/registry";
import { damagedFolderKey } from "./row-keys";

// The "Damaged" group at the bottom of the Sessions tree (issue 21): the folders a list
// left out because they are not sessions it can show. Each row is named by its folder
// and reason only, never by a session id or title it may claim.

export interface DamagedGroupNode {
  kind: "damagedGroup";
  entry: OpenFolder;
}
export interface DamagedFolderNode {
  kind: "damagedFolder";
  entry: OpenFolder;
  folder: DamagedFolder;
}
export type DamagedTreeNode = DamagedGroupNode | DamagedFolderNode;

/** The damaged folders of one workspace folder, in the order a user scans them (by name). */
export class DamagedFolders {
  readonly group: DamagedGroupNode;
  private readonly nodes = new Map<string, DamagedFolderNode>();

  constructor(readonly entry: OpenFolder) {
    this.group = { kind: "damagedGroup", entry };
  }

  add(folder: DamagedFolder): void {
    this.nodes.set(damagedFolderKey(folder), { kind: "damagedFolder", entry: this.entry, folder });
  }

  /** The folder became a session (its meta.json appeared) or was deleted; true when it was shown. */
  remove(folder: { agentId: string; archived: boolean; folder: string }): boolean {
    return this.nodes.delete(damagedFolderKey(folder));
  }

  get size(): number {
    return this.nodes.size;
  }

  rows(): DamagedFolderNode[] {
    return [...this.nodes.values()].sort((a, b) =>
      a.folder.folder < b.folder.folder ? -1 : a.folder.folder > b.folder.folder ? 1 : 0,
    );
  }
}

/** Where a damaged folder is on disk. */
export function damagedFolderUri(node: DamagedFolderNode): vscode.Uri {
  return vscode.Uri.file(node.entry.runtime.damagedDir(node.folder));
}

export function isDamagedFolderNode(v: unknown): v is DamagedFolderNode {
  return (
    typeof v === "object" &&
    v !== null &&
    (v as { kind?: unknown }).kind === "damagedFolder" &&
    "entry" in v &&
    "folder" in v
  );
}

export function damagedTreeItem(node: DamagedTreeNode, model: DamagedFolders | undefined): vscode.TreeItem {
  const base = node.entry.folder.uri.toString();
  if (node.kind === "damagedGroup") {
    const item = new vscode.TreeItem("Damaged", vscode.TreeItemCollapsibleState.Collapsed);
    item.id = `damaged:${base}`;
    item.iconPath = new vscode.ThemeIcon("warning", new vscode.ThemeColor("list.warningForeground"));
    item.description = String(model?.size ?? 0);
    item.tooltip = "Folders in .downcity that are not sessions a list can show. Nothing in them was changed.";
    item.contextValue = "damagedGroup";
    return item;
  }
  const { folder } = node;
  const item = new vscode.TreeItem(folder.folder, vscode.TreeItemCollapsibleState.None);
  item.id = `damaged:${base}:${damagedFolderKey(folder)}`;
  item.description = folder.reason;
  const md = new vscode.MarkdownString();
  md.appendText(`${folder.archived ? "archived" : "sessions"} of agent ${folder.agentId}: ${folder.folder}`);
  md.appendMarkdown("\n\n");
  md.appendText(`Not listed as a session: ${folder.reason}`);
  item.tooltip = md;
  item.iconPath = new vscode.ThemeIcon("error", new vscode.ThemeColor("list.errorForeground"));
  item.contextValue = "damaged";
  return item;
}
