import { join } from "node:path";
import * as vscode from "vscode";
import type { LocalSessionRef } from "../core/protocol";
import { registerCommands } from "./commands/register";
import { Connector } from "./config/connect";
import { ProviderConfig } from "./config/providers";
import { ModelStatus } from "./status/status-bar";
import { createWorkspaceRuntime, type RuntimeFactory } from "../core/runtime";
import { offerGitignore } from "./folders/gitignore-offer";
import { FolderRegistry, type FolderHooks } from "./folders/registry";
import type { SessionTreeNode } from "./sessions/nodes";
import { SessionsTree } from "./sessions/tree";
import { SHOW_MORE_COMMAND } from "./sessions/items";
import { registerChat, type ChatRegistration } from "./chat";
import { chatFoldersOf } from "./chat/folders-from-registry";
import { FolderTools } from "./tools/per-folder";
import { PendingDecisions } from "./approval/decisions";
import { registerSearch } from "./search/register";
import { registerRestore } from "./restore/register";
import { registerMcp } from "./mcp";

/** What activate() hands to other features (the chat, the tools) and to in-host tests. */
export interface DowncityHost {
  runtimes: FolderRegistry;
  tree: SessionsTree;
  /** The Sessions view (its visibility shows where a reveal went). */
  view: vscode.TreeView<SessionTreeNode>;
  config: ProviderConfig;
  status: ModelStatus;
  /** What the sidebar chat shows. */
  chat: Pick<ChatRegistration, "shown" | "onDidShow">;
}

export interface ActivateOptions {
  factory?: RuntimeFactory;
  hooks?: FolderHooks;
  env?: NodeJS.ProcessEnv;
  /** The tree's coalescing window (benchmarks measure every event on its own). */
  coalesceMs?: number;
  /** The chat feature's "show this session"; until it is wired, the chat view is focused. */
  openInChat?: (folder: vscode.WorkspaceFolder, ref: LocalSessionRef) => Promise<void>;
}

let host: DowncityHost | undefined;

/** Wires one disposable per feature. Tests pass the factory and hooks; VS Code passes none. */
export function activate(context: vscode.ExtensionContext, options: ActivateOptions = {}): DowncityHost {
  const output = vscode.window.createOutputChannel("Downcity");
  const log = (line: string) => output.appendLine(line);
  let shownProblems = "";
  const config = new ProviderConfig(context.secrets, context.workspaceState, options.env ?? process.env, (problems) => {
    const text = problems.join("\n");
    if (!text || text === shownProblems) return;
    shownProblems = text;
    problems.forEach((p) => log(`settings: ${p}`));
    void vscode.window.showWarningMessage(
      `Downcity: ${problems.length === 1 ? problems[0] : `${problems.length} settings are invalid (see the Downcity output)`}.`,
    );
  });
  // Tests pass their own hooks; VS Code gets the editor-backed tools, asking the chat first.
  let chat: ChatRegistration | undefined;
  // One decision per approval, answered from the chat card, the diff's title bar or a notification.
  const decisions = new PendingDecisions();
  const folderTools = options.hooks ? undefined : new FolderTools(decisions, () => chat?.approvals);
  // Derived data stays outside the workspace: a cloned `.downcity/` cannot bring a forged index.
  const storage = context.storageUri ?? context.globalStorageUri;
  const mcp = registerMcp(context);
  const hooks = {
    ...(options.hooks ?? folderTools?.hooks),
    mcpTools: (folder: vscode.WorkspaceFolder) => mcp.servers.tools(folder),
  };
  const runtimes = new FolderRegistry(
    options.factory ?? createWorkspaceRuntime,
    config,
    hooks,
    log,
    storage && join(storage.fsPath, "search"),
  );
  const tree = new SessionsTree(runtimes, {
    log,
    ...(options.coalesceMs !== undefined && { coalesceMs: options.coalesceMs }),
  });
  const view = vscode.window.createTreeView("downcity.sessions", { treeDataProvider: tree, showCollapseAll: true });
  const showMore = vscode.commands.registerCommand(SHOW_MORE_COMMAND, (node?: SessionTreeNode) => tree.showMore(node));
  const status = new ModelStatus(config, runtimes);
  chat = registerChat(
    context,
    chatFoldersOf(runtimes, config, new Connector(config, () => runtimes.restricted())),
    decisions,
  );
  const registered = chat;
  // Delete, archive and rename reach every chat view of the session, whichever window did them.
  const followSessions = tree.onDidChangeSession(({ entry, change }) =>
    registered.controller.sessionChanged(entry.folder.uri.toString(), change),
  );
  const show =
    options.openInChat ??
    ((folder: vscode.WorkspaceFolder, ref: LocalSessionRef) =>
      registered.openInChat(folder.uri.toString(), { agentId: ref.agentId ?? "code", sessionId: ref.sessionId }));
  const openInChat = async (folder: vscode.WorkspaceFolder, ref: LocalSessionRef) => {
    status.setActive(runtimes.get(folder)?.runtime.root ?? folder.uri.fsPath, ref);
    await show(folder, ref);
  };
  context.subscriptions.push(
    output,
    mcp.disposable,
    ...(folderTools ? [folderTools] : []),
    chat,
    config,
    runtimes,
    tree,
    followSessions,
    showMore,
    view,
    status,
    registerCommands({ runtimes, tree, config, openInChat, output, showConnect: () => registered.showConnect() }),
    offerGitignore(runtimes, context.workspaceState),
    registerRestore({ runtime: (key) => registered.controller.folder(key).runtime, shown: () => registered.shown() }),
    registerSearch(runtimes, async (folder, hit, query) => {
      status.setActive(runtimes.get(folder)?.runtime.root ?? folder.uri.fsPath, {
        agentId: hit.agentId,
        sessionId: hit.sessionId,
      });
      await registered.revealInChat(folder.uri.toString(), hit, { seq: hit.seq, query });
    }),
  );
  host = { runtimes, tree, view, config, status, chat: registered };
  return host;
}

/** Cancels runs, flushes sessions and releases locks within VS Code's deactivate budget. */
export async function deactivate(): Promise<void> {
  const closing = host?.runtimes.close();
  host = undefined;
  await closing;
}
