import type * as vscode from "vscode";
import type { LocalSessionRef } from "../core/protocol";
import { registerCommands } from "./commands/register";
import { Connector } from "./config/connect";
import type { ProviderConfig } from "./config/providers";
import { ModelStatus } from "./status/status-bar";
import { offerGitignore } from "./folders/gitignore-offer";
import type { FolderRegistry } from "./folders/registry";
import type { SessionsTree } from "./sessions/tree";
import { registerChat, type ChatRegistration } from "./chat";
import { chatFoldersOf } from "./chat/folders-from-registry";
import { FolderTools } from "./tools/per-folder";
import { PendingDecisions } from "./approval/decisions";
import { registerSearch } from "./search/register";
import { registerRestore } from "./restore/register";
import { registerMcp, type McpServers } from "./mcp";
import type { Seams } from "./seams";

/** The parts of the rest that the folders' records (made in activate.ts, before the rest) call into, set here. */
export interface Late {
  tools?: FolderTools;
  mcp?: McpServers;
}

/** What activate.ts made before the tree's first draw: the Sessions tree and what it stands on. */
export interface TreePart {
  context: vscode.ExtensionContext;
  seams: Seams;
  runtimes: FolderRegistry;
  tree: SessionsTree;
  config: ProviderConfig;
  output: vscode.OutputChannel;
  late: Late;
}

/**
 * The rest of the extension, made once the Sessions tree has drawn its first rows: the folders' tools and MCP
 * servers, the model's status, the chat, the commands, restore and search. Each feature's disposable goes into
 * `features`, in the order they stand on each other.
 */
export function activateFeatures(
  { context, seams, runtimes, tree, config, output, late }: TreePart,
  features: vscode.Disposable[],
): { status: ModelStatus; chat: Pick<ChatRegistration, "shown" | "onDidShow"> } {
  const feature = <T extends vscode.Disposable>(made: T): T => (features.push(made), made);
  // One decision per approval, answered from the chat card, the diff's title bar or a notification.
  const decisions = new PendingDecisions();
  let chat: ChatRegistration | undefined;
  const tools = seams.tools ? undefined : feature(new FolderTools(decisions, () => chat?.approvals));
  late.tools = tools;
  const mcp = registerMcp(context);
  feature(mcp.disposable);
  late.mcp = mcp.servers;
  const status = feature(new ModelStatus(config, runtimes));
  const connector = new Connector(config, () => runtimes.restricted());
  // The tree has drawn (or was not asked to) before the rest: the sidebar chat's document has nothing to wait for.
  const registered = feature(registerChat(context, chatFoldersOf(runtimes, config, connector), decisions));
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
  return { status, chat: registered };
}
