import * as vscode from "vscode";
import type { SessionRef } from "../../core/protocol";
import type { ChatController } from "./controller";
import type { HostActions } from "./host-actions";
import type { ChatRpcServer } from "./rpc-server";
import type { ShownMemory } from "./shown-memory";
import { sameRef } from "../../core/protocol";
import { attachChat, CHAT_PANEL_TYPE, type ChatViewProvider } from "./views";
import { recoveryBudget, type RecoveryBudget } from "./hello-watchdog";

interface EditorChat {
  panel: vscode.WebviewPanel;
  server: ChatRpcServer;
  /** Replaced by a new panel (its document never said hello): its closing does not bring the chat back. */
  replaced?: boolean;
}

/**
 * The editor chats ("Open Chat in Editor"). Opening the sidebar's conversation *moves* it
 * (as Copilot's and Claude Code's editor chats do): the sidebar shows a placeholder with
 * "Bring Chat Back", so one conversation is not shown, and typed into, in two places.
 * Closing the tab, or Bring Chat Back, shows the conversation in the sidebar again.
 */
export class EditorChats implements vscode.Disposable {
  private readonly open = new Set<EditorChat>();
  private disposed = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: ChatController,
    private readonly actions: HostActions,
    private readonly sidebar: ChatViewProvider,
  ) {
    sidebar.onBringBack = (ref) => this.bringBack(ref);
  }

  /** Opens `ref` (else the sidebar's conversation) in a new editor tab; the sidebar's own conversation moves there. */
  async openInEditor(ref: SessionRef | undefined): Promise<vscode.WebviewPanel> {
    const target = ref ?? this.sidebar.shown;
    const chat = this.attach(
      vscode.window.createWebviewPanel(CHAT_PANEL_TYPE, "Downcity Chat", vscode.ViewColumn.Beside, {
        enableScripts: true,
      }),
      recoveryBudget(),
    );
    if (target) {
      await chat.server.show(target);
      // Only once the tab shows it: a session that fails to open stays where it was.
      this.sidebar.moveAway(target);
    }
    return chat.panel;
  }

  /**
   * A tab restored after a reload: its webview's saved state says which session it shows. VS Code may not
   * have saved that state before the reload (the tab then came back empty): a tab with none shows the
   * conversation the sidebar's placeholder says is in a tab, unless another tab shows it already.
   */
  restore(panel: vscode.WebviewPanel, budget = recoveryBudget()): void {
    this.attach(panel, budget, {
      get: () => {
        const moved = this.sidebar.moved;
        return moved && ![...this.open].some((c) => c.server.ref && sameRef(c.server.ref, moved)) ? moved : undefined;
      },
      set: () => {},
      moved: () => undefined,
      setMoved: () => {},
    });
  }

  /** The placeholder's button: the tab showing `ref` closes (which shows it in the sidebar), else the sidebar shows it. */
  async bringBack(ref: SessionRef): Promise<void> {
    const chat = [...this.open].find((c) => c.server.ref && sameRef(c.server.ref, ref));
    if (chat) chat.panel.dispose();
    else await this.sidebar.restore(ref);
  }

  /**
   * A tab whose document never said hello (hello-watchdog.ts): a new panel in its place shows what it was to show
   * (its session had not reached it, so it is the placeholder's, as for a restored tab), and the old one closes.
   */
  private replace(stuck: EditorChat, budget: RecoveryBudget): void {
    if (this.disposed || !this.open.has(stuck)) return;
    const panel = vscode.window.createWebviewPanel(
      CHAT_PANEL_TYPE,
      stuck.panel.title,
      { viewColumn: stuck.panel.viewColumn ?? vscode.ViewColumn.Active, preserveFocus: !stuck.panel.active },
      { enableScripts: true },
    );
    const shows = stuck.server.ref;
    stuck.replaced = true;
    stuck.panel.dispose();
    if (shows)
      void this.attach(panel, budget)
        .server.show(shows)
        .catch(() => undefined);
    else this.restore(panel, budget);
  }

  dispose(): void {
    this.disposed = true;
    for (const chat of this.open) chat.panel.dispose();
  }

  private attach(panel: vscode.WebviewPanel, budget: RecoveryBudget, memory?: ShownMemory): EditorChat {
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, "media", "downcity.svg");
    // The recovery runs after a bound, once `chat` is set.
    let chat: EditorChat | undefined;
    const server = attachChat(
      panel.webview,
      this.extensionUri,
      this.controller,
      this.actions,
      {
        visible: () => panel.visible,
        onDidChangeVisibility: panel.onDidChangeViewState,
        recover: () => chat && this.replace(chat, budget),
        budget,
        kind: "editor",
      },
      memory,
    );
    const opened: EditorChat = { panel, server };
    chat = opened;
    // The tab says which session it shows, and follows a rename from anywhere.
    server.onTitle = (title) => (panel.title = title ? `Downcity: ${title}` : "Downcity Chat");
    this.open.add(opened);
    panel.onDidDispose(() => {
      this.open.delete(opened);
      server.dispose();
      if (opened.replaced) return;
      // The sidebar still holds the placeholder for this conversation and no other tab shows it: it comes back there.
      const moved = this.sidebar.moved;
      if (this.disposed || !moved || [...this.open].some((c) => c.server.ref && sameRef(c.server.ref, moved))) return;
      void this.sidebar.restore(moved).catch(() => undefined);
    });
    return opened;
  }
}

/** Whether any editor tab is a Downcity chat (its input's view type; VS Code prefixes the one we registered). */
export function chatEditorTabOpen(): boolean {
  return vscode.window.tabGroups.all.some((group) =>
    group.tabs.some((tab) => {
      const viewType = (tab.input as { viewType?: unknown } | undefined)?.viewType;
      return typeof viewType === "string" && viewType.endsWith(CHAT_PANEL_TYPE);
    }),
  );
}
