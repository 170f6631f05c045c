import * as vscode from "vscode";
import type { LocalSessionRef } from "../../core/protocol";
import type { OpenFolder, FolderRegistry } from "../folders/registry";
import { relativeTime } from "../sessions/format";
import { sessionLabel } from "../sessions/items";
import type { SessionNode, SessionTreeNode } from "../sessions/nodes";
import type { SessionsTree } from "../sessions/tree";
import { toUri, type SessionRefArg } from "./arguments";

/** A session a command acts on: a tree row, or `{ folder | folderKey, agentId, sessionId }` from the chat, another extension or a test. */
export type SessionArg = SessionTreeNode | SessionRefArg | undefined;

export interface SessionFilter {
  archived?: boolean;
  running?: boolean;
}

interface SessionPick extends vscode.QuickPickItem {
  node: SessionNode;
}

/** A quick pick of sessions, newest first, searchable by title (and folder, agent). */
export async function pickSession(
  tree: SessionsTree,
  runtimes: FolderRegistry,
  filter: SessionFilter,
  placeHolder: string,
): Promise<SessionNode | undefined> {
  await tree.ready;
  const rows = tree.sessions(filter);
  if (rows.length === 0) {
    const what = filter.running ? "running sessions" : filter.archived ? "archived sessions" : "sessions";
    void vscode.window.showInformationMessage(`Downcity: there are no ${what}.`);
    return undefined;
  }
  const now = Date.now();
  const several = runtimes.all().length > 1;
  const picks: SessionPick[] = rows.map((node) => ({
    label: sessionLabel(node),
    description: [relativeTime(node.item.updatedAt, now), several ? node.entry.folder.name : "", node.item.agentId]
      .filter(Boolean)
      .join(" · "),
    node,
  }));
  const chosen = await vscode.window.showQuickPick(picks, { placeHolder, matchOnDescription: true });
  return chosen?.node;
}

/** The session a command was invoked on, or the one the user picks. */
export async function resolveSession(
  arg: SessionArg,
  tree: SessionsTree,
  runtimes: FolderRegistry,
  filter: SessionFilter,
  placeHolder: string,
): Promise<SessionNode | undefined> {
  if (arg && "kind" in arg) return arg.kind === "session" ? arg : pickSession(tree, runtimes, filter, placeHolder);
  if (arg && "sessionId" in arg) {
    const entry = folderEntry(runtimes, arg.folder ?? arg.folderKey!);
    await tree.ready;
    const node = tree.find(entry, arg.agentId, arg.sessionId);
    if (!node) throw new Error(`no session ${arg.sessionId} in ${entry.folder.name}`);
    return node;
  }
  return pickSession(tree, runtimes, filter, placeHolder);
}

/** The open workspace folder a caller named (its URI, URI string or path), or a clear error. */
export function folderEntry(runtimes: FolderRegistry, location: vscode.Uri | string): OpenFolder {
  const uri = toUri(location);
  const entry =
    runtimes.get(uri) ??
    runtimes.all().find((e) => e.runtime.root === uri.fsPath || e.folder.uri.fsPath === uri.fsPath);
  if (!entry) throw new Error(`no workspace folder ${uri.scheme === "file" ? uri.fsPath : uri.toString()} is open`);
  return entry;
}

export const refOf = (node: SessionNode): LocalSessionRef => ({
  agentId: node.item.agentId,
  sessionId: node.item.sessionId,
});
