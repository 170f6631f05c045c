import * as vscode from "vscode";
import { SessionRef, type RevealTarget } from "../../core/protocol";
import type { PendingDecisions } from "../approval/decisions";
import { ChatController } from "./controller";
import type { ChatApprovalSink } from "../approval/chat-sink";
import type { ChatFolders } from "./folders";
import { CHAT_PANEL_TYPE, CHAT_VIEW_ID, ChatViewProvider } from "./views";
import { EditorChats, chatEditorTabOpen } from "./editor-panel";
import { workspaceShownMemory } from "./shown-memory";
import { DIFF_SCHEME, DiffDocuments, VscodeHostActions } from "./vscode-actions";
import { registerAddToChat } from "./add-to-chat";
import { VscodeMentions } from "../mentions/resolve";
import { TerminalOutputs } from "../mentions/terminal-output";

export type { ChatFolder, ChatFolders } from "./folders";
export { ChatController } from "./controller";

export interface ChatRegistration extends vscode.Disposable {
  /** Shows a session in the sidebar chat (the Sessions tree's click). */
  openInChat(folderKey: string, ref: { agentId: string; sessionId: string }): Promise<void>;
  /** Shows a session in the sidebar chat scrolled to one of its messages, highlighted (a search result). */
  revealInChat(folderKey: string, ref: { agentId: string; sessionId: string }, target: RevealTarget): Promise<void>;
  /** Ask here first; undefined means no visible chat shows that session. */
  approvals: ChatApprovalSink;
  controller: ChatController;
  /** The session the sidebar chat shows (in-host tests read it), and when one shown from outside arrived. */
  shown(): SessionRef | undefined;
  onDidShow: vscode.Event<SessionRef>;
  /** Reveals the sidebar chat with the connect form (Select Model's "Add a model…"). */
  showConnect(): Promise<void>;
}

/**
 * Registers the sidebar chat (`downcity.chat`), the editor chats
 * (`downcity.openChatInEditor`, editor-panel.ts, restored across reloads by a panel serializer) and the
 * diff documents the tool cards open. The view and command are declared in package.json.
 */
export function registerChat(
  context: vscode.ExtensionContext,
  runtimes: ChatFolders,
  decisions?: PendingDecisions,
): ChatRegistration {
  const controller = new ChatController(runtimes, decisions);
  const diffs = new DiffDocuments();
  const terminals = new TerminalOutputs();
  const mentions = new VscodeMentions(terminals);
  const actions = new VscodeHostActions(diffs, mentions);
  const memory = workspaceShownMemory(context.workspaceState);
  // A window whose editor layout was not saved before it reloaded comes back without the chat's tab: a placeholder
  // naming a tab that is not there would be false, so the sidebar shows the conversation again.
  if (memory.moved() && !chatEditorTabOpen()) memory.setMoved(undefined);
  const provider = new ChatViewProvider(context.extensionUri, controller, actions, memory);
  const editors = new EditorChats(context.extensionUri, controller, actions, provider);
  const disposables: vscode.Disposable[] = [
    controller,
    editors,
    provider,
    terminals,
    mentions,
    registerAddToChat(controller, mentions, (attachments) => provider.attach(attachments)),
    vscode.window.registerWebviewViewProvider(CHAT_VIEW_ID, provider),
    vscode.workspace.registerTextDocumentContentProvider(DIFF_SCHEME, diffs),
    // The conversation the sidebar shows moves to the tab (a menu or palette passes no ref, or something else).
    vscode.commands.registerCommand("downcity.openChatInEditor", (arg?: unknown) => {
      const parsed = SessionRef.safeParse(arg);
      return editors.openInEditor(parsed.success ? parsed.data : undefined);
    }),
    // The webview keeps its own state; the panel only needs its document back.
    vscode.window.registerWebviewPanelSerializer(CHAT_PANEL_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel) {
        editors.restore(panel);
      },
    }),
  ];
  context.subscriptions.push(...disposables);
  return {
    openInChat: (folderKey, ref) => provider.show({ folderKey, agentId: ref.agentId, sessionId: ref.sessionId }),
    revealInChat: (folderKey, ref, target) =>
      provider.show({ folderKey, agentId: ref.agentId, sessionId: ref.sessionId }, target),
    approvals: controller.approvals,
    controller,
    shown: () => provider.shown,
    onDidShow: provider.onDidShow,
    showConnect: () => provider.showConnect(),
    dispose: () => disposables.forEach((d) => d.dispose()),
  };
}
