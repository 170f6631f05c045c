import { join } from "node:path";
import * as vscode from "vscode";
import { createWorkspaceRuntime, hop } from "../core/runtime/before-first-draw";
import { ProviderConfig } from "./config/providers";
import { FolderRegistry, type FolderHooks, type FolderToolSet } from "./folders/registry";
import type { SessionTreeNode } from "./sessions/nodes";
import { SessionsTree } from "./sessions/tree";
import { RememberedFirstRows, REMEMBERED_FILE } from "./sessions/remembered-rows";
import { SHOW_MORE_COMMAND } from "./sessions/items";
import { FIRST_PAGE_WORKER, offThreadPages } from "./sessions/off-thread-pages";
import { FIRST_DRAW_ASK_MS, FIRST_DRAW_MS } from "./sessions/first-draw";
import type { ChatRegistration } from "./chat";
import type { ModelStatus } from "./status/status-bar";
import type { Late } from "./features";
import { clearSeams, currentSeams } from "./seams";
import { hostTurn } from "./host-turn";

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
let folders: FolderRegistry | undefined;
let remembered: RememberedFirstRows | undefined;

/**
 * The extension: a list of features, each one disposable, in the order they stand on each other. Unit tests and
 * benches replace parts through extension/seams.ts (useSeams) before calling it; VS Code passes the context alone.
 *
 * In two steps (issue 20): the Sessions tree and what it stands on, then, once the tree has drawn its first rows (or
 * the workbench did not ask for them: a hidden view), the rest (extension/features.ts). The rest is required only
 * then, so the extension host evaluates its modules (the chat, the agent, the providers, the protocol's schemas)
 * after the first row instead of before it. VS Code runs a command or resolves the chat view once activation ends.
 */
export async function activate(context: vscode.ExtensionContext): Promise<DowncityHost> {
  hop("activate");
  const seams = currentSeams();
  const first: vscode.Disposable[] = [];
  const feature = <T extends vscode.Disposable>(made: T): T => (first.push(made), made);
  // Disposed top floor first: the chat and commands go before the folders' records they use.
  const done = (disposables: vscode.Disposable[]) => context.subscriptions.unshift(...disposables.reverse());

  const output = feature(vscode.window.createOutputChannel("Downcity"));
  const log = (line: string) => output.appendLine(line);
  const config = feature(
    new ProviderConfig(context.secrets, context.workspaceState, seams.env ?? process.env, settingsWarning(log)),
  );
  // The folders' tools and MCP servers are made by the rest; a folder's runtime asks for them only when it runs.
  const late: Late = {};
  const hooks: FolderHooks = {
    tools: seams.tools ?? ((folder, root) => lateTools(late, folder, root)),
    mcp: (folder) => ({
      tools: () => startedPart(late.mcp).forFolder(folder).tools(),
      dispose: () => late.mcp?.forFolder(folder).dispose() ?? Promise.resolve(),
    }),
  };
  // Derived data stays outside the workspace: a cloned `.downcity/` cannot bring a forged index.
  const storage = context.storageUri ?? context.globalStorageUri;
  // Each folder's record (runtime, tools, MCP servers, the chat's live state) is made and disposed here.
  const runtimes = feature(
    new FolderRegistry(
      seams.factory ?? createWorkspaceRuntime,
      config,
      hooks,
      log,
      storage && join(storage.fsPath, "search"),
    ),
  );
  folders = runtimes;
  remembered = new RememberedFirstRows(
    storage?.scheme === "file" ? join(storage.fsPath, REMEMBERED_FILE) : undefined,
    log,
  );
  const tree = feature(
    new SessionsTree(runtimes, {
      log,
      remembered,
      // A workspace's first window at scale lists its first pages on a worker thread (the bundle's dist/ folder).
      offThread: offThreadPages(join(__dirname, FIRST_PAGE_WORKER)),
      ...(seams.coalesceMs !== undefined && { coalesceMs: seams.coalesceMs }),
    }),
  );
  const view = feature(
    vscode.window.createTreeView("downcity.sessions", { treeDataProvider: tree, showCollapseAll: true }),
  );
  hop("tree view created");
  feature(vscode.commands.registerCommand(SHOW_MORE_COMMAND, (node?: SessionTreeNode) => tree.showMore(node)));
  done(first);

  if (!seams.restAtOnce) {
    await tree.firstDrawn(FIRST_DRAW_ASK_MS, FIRST_DRAW_MS);
    // The first rows' reply is written out before the rest's evaluation holds the host's thread.
    await hostTurn();
  }
  // The window closed meanwhile: deactivate() closed the folders, and nothing is left to make the rest for.
  if (folders !== runtimes) throw new Error("Downcity was deactivated while it started");
  hop("the rest starts");
  const { activateFeatures } = require("./features") as typeof import("./features");
  const rest: vscode.Disposable[] = [];
  const made = activateFeatures({ context, seams, runtimes, tree, config, output, late }, rest);
  done(rest);
  host = { runtimes, tree, view, config, ...made };
  hop("activated");
  return host;
}

/** A folder's editor-backed tools, made by the rest's FolderTools at the first run that asks. */
function lateTools(late: Late, folder: vscode.WorkspaceFolder, root: string): FolderToolSet {
  let made: FolderToolSet | undefined;
  const set = () => (made ??= startedPart(late.tools).forFolder(folder, root));
  return {
    tools: () => set().tools(),
    approve: (request, signal) => set().approve!(request, signal),
    dispose: () => made?.dispose(),
  };
}

/** A part the rest makes, which nothing asks for before the rest is made (no command or chat exists before). */
function startedPart<T>(part: T | undefined): T {
  if (!part) throw new Error("Downcity is still starting; try again in a moment");
  return part;
}

/** Invalid settings: each problem in the output, and one warning until they change. */
function settingsWarning(log: (line: string) => void): (problems: string[]) => void {
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

/** Cancels runs, flushes sessions and releases locks within VS Code's deactivate budget. */
export async function deactivate(): Promise<void> {
  const closing = folders?.close();
  // The tree's rows of the last few seconds, for the next window's first draw.
  const remembering = remembered?.flush();
  host = undefined;
  folders = undefined;
  remembered = undefined;
  clearSeams();
  await Promise.all([closing, remembering]);
}
