import { join } from "node:path";
import * as vscode from "vscode";
import type { LocalSessionRef } from "../core/protocol";
import { registerCommands } from "./commands/register";
import { Connector } from "./config/connect";
import { ProviderConfig } from "./config/providers";
import { ModelStatus } from "./status/status-bar";
import { createWorkspaceRuntime, hop } from "../core/runtime";
import { offerGitignore } from "./folders/gitignore-offer";
import { FolderRegistry } from "./folders/registry";
import type { SessionTreeNode } from "./sessions/nodes";
import { SessionsTree } from "./sessions/tree";
import { RememberedFirstRows, REMEMBERED_FILE } from "./sessions/remembered-rows";
import { SHOW_MORE_COMMAND } from "./sessions/items";
import { registerChat, type ChatRegistration } from "./chat";
import { CHAT_ASK_MS, CHAT_HOLD_MS } from "./chat/views";
import { chatFoldersOf } from "./chat/folders-from-registry";
import { FolderTools } from "./tools/per-folder";
import { PendingDecisions } from "./approval/decisions";
import { registerSearch } from "./search/register";
import { registerRestore } from "./restore/register";
import { registerMcp } from "./mcp";
import { clearSeams, currentSeams } from "./seams";

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

let host: DowncityHost | undefined;
let remembered: RememberedFirstRows | undefined;

/**
 * The extension: a list of features, each one disposable, in the order they stand on each other. Unit tests and
 * benches replace parts through extension/seams.ts (useSeams) before calling it; VS Code passes the context alone.
 */
export function activate(context: vscode.ExtensionContext): DowncityHost {
  hop("activate");
  const seams = currentSeams();
  const features: vscode.Disposable[] = [];
  const feature = <T extends vscode.Disposable>(made: T): T => (features.push(made), made);

  const output = feature(vscode.window.createOutputChannel("Downcity"));
  const log = (line: string) => output.appendLine(line);
  const config = feature(new ProviderConfig(context.secrets, context.workspaceState, seams.env ?? process.env, warn()));
  // One decision per approval, answered from the chat card, the diff's title bar or a notification.
  const decisions = new PendingDecisions();
  let chat: ChatRegistration | undefined;
  const tools = seams.tools ? undefined : feature(new FolderTools(decisions, () => chat?.approvals));
  const mcp = registerMcp(context);
  feature(mcp.disposable);
  // Derived data stays outside the workspace: a cloned `.downcity/` cannot bring a forged index.
  const storage = context.storageUri ?? context.globalStorageUri;
  // Each folder's record (runtime, tools, MCP servers, the chat's live state) is made and disposed here.
  const runtimes = feature(
    new FolderRegistry(
      seams.factory ?? createWorkspaceRuntime,
      config,
      { tools: seams.tools ?? tools?.forFolder, mcp: (folder) => mcp.servers.forFolder(folder) },
      log,
      storage && join(storage.fsPath, "search"),
    ),
  );
  remembered = new RememberedFirstRows(
    storage?.scheme === "file" ? join(storage.fsPath, REMEMBERED_FILE) : undefined,
    log,
  );
  const tree = feature(
    new SessionsTree(runtimes, {
      log,
      remembered,
      ...(seams.coalesceMs !== undefined && { coalesceMs: seams.coalesceMs }),
    }),
  );
  const view = feature(
    vscode.window.createTreeView("downcity.sessions", { treeDataProvider: tree, showCollapseAll: true }),
  );
  hop("tree view created");
  feature(vscode.commands.registerCommand(SHOW_MORE_COMMAND, (node?: SessionTreeNode) => tree.showMore(node)));
  const status = feature(new ModelStatus(config, runtimes));
  const connector = new Connector(config, () => runtimes.restricted());
  // The sidebar chat's document waits for the tree's first draw (bounded): one click opens both, one renderer draws both.
  const registered = feature(
    registerChat(context, chatFoldersOf(runtimes, config, connector), decisions, () =>
      tree.firstDrawn(CHAT_ASK_MS, CHAT_HOLD_MS),
    ),
  );
  chat = registered;
  // Delete, archive and rename reach every chat view of the session, whichever window did them.
  feature(tree.onDidChangeSession(({ entry, change }) => registered.controller.sessionChanged(entry.key, change)));
  // ...and end the session's commands and terminal when it is deleted or archived.
  if (tools) feature(tree.onDidChangeSession(({ entry, change }) => tools.sessionChanged(entry.key, change)));
  const show =
    seams.openInChat ??
    ((folder: vscode.WorkspaceFolder, ref: LocalSessionRef) =>
      registered.openInChat(folder.uri.toString(), { agentId: ref.agentId ?? "code", sessionId: ref.sessionId }));
  const openInChat = async (folder: vscode.WorkspaceFolder, ref: LocalSessionRef) => {
    status.setActive(runtimes.get(folder)?.root ?? folder.uri.fsPath, ref);
    await show(folder, ref);
  };
  feature(
    registerCommands({ runtimes, tree, config, openInChat, output, showConnect: () => registered.showConnect() }),
  );
  feature(offerGitignore(runtimes, context.workspaceState));
  feature(
    registerRestore({ runtime: (key) => registered.controller.folder(key).runtime, shown: () => registered.shown() }),
  );
  feature(
    registerSearch(runtimes, async (folder, hit, query) => {
      status.setActive(runtimes.get(folder)?.root ?? folder.uri.fsPath, {
        agentId: hit.agentId,
        sessionId: hit.sessionId,
      });
      await registered.revealInChat(folder.uri.toString(), hit, { seq: hit.seq, query });
    }),
  );
  // Disposed top floor first: the chat and commands go before the folders' records they use.
  context.subscriptions.push(...features.reverse());
  host = { runtimes, tree, view, config, status, chat: registered };
  hop("activated");
  return host;

  /** Invalid settings: each problem in the output, and one warning until they change. */
  function warn(): (problems: string[]) => void {
    let shownProblems = "";
    return (problems) => {
      const text = problems.join("\n");
      if (!text || text === shownProblems) return;
      shownProblems = text;
      problems.forEach((p) => log(`settings: ${p}`));
      void vscode.window.showWarningMessage(
        `Downcity: ${problems.length === 1 ? problems[0] : `${problems.length} settings are invalid (see the Downcity output)`}.`,
      );
    };
  }
}

/** Cancels runs, flushes sessions and releases locks within VS Code's deactivate budget. */
export async function deactivate(): Promise<void> {
  const closing = host?.runtimes.close();
  // The tree's rows of the last few seconds, for the next window's first draw.
  const remembering = remembered?.flush();
  host = undefined;
  remembered = undefined;
  clearSeams();
  await Promise.all([closing, remembering]);
}
