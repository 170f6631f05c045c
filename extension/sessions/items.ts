import * as vscode from "vscode";
import { sessionKey } from "../../core/protocol/refs";
import type { DamagedTreeNode } from "./damaged";
import type { FolderModel } from "./folder-model";
import { formatBytes, relativeTime } from "./format";
import { sessionState, type SessionNode, type SessionState, type SessionTreeNode } from "./nodes";

const ICONS: Record<SessionState, () => vscode.ThemeIcon> = {
  running: () => new vscode.ThemeIcon("loading~spin"),
  waiting: () => new vscode.ThemeIcon("bell-dot", new vscode.ThemeColor("list.warningForeground")),
  interrupted: () => new vscode.ThemeIcon("debug-pause"),
  elsewhere: () => new vscode.ThemeIcon("lock"),
  damaged: () => new vscode.ThemeIcon("error", new vscode.ThemeColor("list.errorForeground")),
  archived: () => new vscode.ThemeIcon("archive"),
  idle: () => new vscode.ThemeIcon("comment-discussion"),
};

const STATE_TEXT: Record<SessionState, string> = {
  running: "Running",
  waiting: "Waiting for your approval",
  interrupted: "Interrupted",
  elsewhere: "Read-only: another window writes it",
  damaged: "Read-only: damaged storage",
  archived: "Archived",
  idle: "",
};

export const sessionLabel = (node: SessionNode) => node.item.title ?? "New session";

/** The "Show more" row's command (internal: not in the palette). */
export const SHOW_MORE_COMMAND = "downcity.sessions.showMore";

/** The menus' `viewItem` value: `session.live`, `session.live.running` or `session.archived`. */
export function sessionContext(node: SessionNode): string {
  if (node.item.archived) return "session.archived";
  return node.item.running || node.activity.running ? "session.live.running" : "session.live";
}

/** Where a fork came from, by its source's title (never its id): the source may be gone. */
export function forkOrigin(node: SessionNode, model: FolderModel | undefined): string | undefined {
  const from = node.item.forkedFrom;
  if (!from) return undefined;
  const source = model?.get(from.agentId, from.sessionId);
  return source ? `Forked from "${sessionLabel(source)}"` : "Forked from a session that no longer exists";
}

function tooltip(node: SessionNode, state: SessionState, model: FolderModel | undefined): vscode.MarkdownString {
  const { item } = node;
  const md = new vscode.MarkdownString();
  md.appendText(sessionLabel(node));
  const origin = forkOrigin(node, model);
  if (origin) {
    md.appendMarkdown("\n\n");
    md.appendText(origin);
  }
  md.appendMarkdown("\n\n");
  md.appendText(
    `Model: ${item.model ?? "none yet"} · ${item.messageCount} messages · history ${formatBytes(item.historyBytes)}`,
  );
  md.appendMarkdown("\n\n");
  md.appendText(`Agent: ${item.agentId} · updated ${new Date(item.updatedAt).toLocaleString()}`);
  if (STATE_TEXT[state]) {
    md.appendMarkdown("\n\n");
    md.appendText(STATE_TEXT[state]);
  }
  if (item.readOnly) {
    md.appendMarkdown("\n\n");
    md.appendText(item.readOnly);
  }
  return md;
}

/** The row of one tree element. */
export function sessionTreeItem(
  node: Exclude<SessionTreeNode, DamagedTreeNode>,
  model: FolderModel | undefined,
  now: number,
): vscode.TreeItem {
  const base = node.entry.folder.uri.toString();
  switch (node.kind) {
    case "folder": {
      const item = new vscode.TreeItem(node.entry.folder.name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `folder:${base}`;
      item.iconPath = new vscode.ThemeIcon("root-folder");
      item.contextValue = "folder";
      return item;
    }
    case "agent": {
      const name = node.entry.runtime.agents.find((a) => a.id === node.agentId)?.name ?? node.agentId;
      const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `agent:${base}:${node.agentId}`;
      item.iconPath = new vscode.ThemeIcon("hubot");
      item.contextValue = "agent";
      return item;
    }
    case "archived": {
      const item = new vscode.TreeItem("Archived", vscode.TreeItemCollapsibleState.Collapsed);
      item.id = `archived:${base}:${node.agentId}`;
      item.iconPath = new vscode.ThemeIcon("archive");
      // Counts only once the full list is in (the first page knows the newest sessions, not how many).
      if (model && !model.partial) item.description = String(model.sessions(node.agentId, true).length);
      item.contextValue = "archivedGroup";
      return item;
    }
    case "date": {
      // Today, or else Yesterday, opens (see FolderModel.opens); the others wait to be expanded (their rows are not asked for until then).
      const open = model?.opens(node) ?? false;
      const item = new vscode.TreeItem(
        node.label,
        open ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed,
      );
      item.id = `date:${base}:${node.agentId}:${node.key}`;
      if (model && !model.partial) item.description = String(model.groupSize(node));
      item.contextValue = "dateGroup";
      return item;
    }
    case "more": {
      const item = new vscode.TreeItem("Show more", vscode.TreeItemCollapsibleState.None);
      const group = node.group;
      item.id = `more:${base}:${group.kind === "date" ? `${group.agentId}:${group.key}` : `archived:${group.agentId}`}`;
      item.iconPath = new vscode.ThemeIcon("ellipsis");
      item.tooltip = "Show older sessions of this group";
      item.contextValue = "showMore";
      item.command = { command: SHOW_MORE_COMMAND, title: "Show more", arguments: [node] };
      return item;
    }
    case "session": {
      const state = sessionState(node);
      const item = new vscode.TreeItem(sessionLabel(node), vscode.TreeItemCollapsibleState.None);
      // The session's one key (folder, agent, session), and its area: an archived row is another item than the live one.
      item.id = `session:${node.item.archived ? "a" : "l"}:${sessionKey(node.item, base)}`;
      item.description = relativeTime(node.item.updatedAt, now);
      item.tooltip = tooltip(node, state, model);
      // A fork at rest shows it is one; a state (running, waiting…) says more.
      item.iconPath = state === "idle" && node.item.forkedFrom ? new vscode.ThemeIcon("repo-forked") : ICONS[state]();
      item.contextValue = sessionContext(node);
      item.command = { command: "downcity.openSession", title: "Open Session", arguments: [node] };
      return item;
    }
  }
}
