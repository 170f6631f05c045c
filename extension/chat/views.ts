import * as vscode from "vscode";
import type { ChatHostMessage, SessionRef, ResolvedAttachment, RevealTarget } from "../../core/protocol";
import type { ChatController } from "./controller";
import type { HostActions } from "./host-actions";
import { chatHtml, makeNonce } from "./html";
import { sameRef } from "../../core/protocol";
import { ChatRpcServer } from "./rpc-server";
import { watchRules } from "./rules-watch";
import type { ShownMemory } from "./shown-memory";
import { HELLO_BOUND_MS, HelloWatchdog, recoveryBudget, type RecoveryBudget } from "./hello-watchdog";
import { hop } from "../../core/runtime";

export const CHAT_VIEW_ID = "downcity.chat";
export const CHAT_PANEL_TYPE = "downcity.chatEditor";

/** Where a chat webview is shown: the sidebar view or an editor panel. */
export interface ChatWebviewHost {
  /** Whether it is shown now (a hidden one has no document: VS Code drops it, the view restores on show). */
  visible(): boolean;
  /** Fires when it may have been shown or hidden. */
  onDidChangeVisibility: vscode.Event<unknown>;
  /** Its document never said hello: give it a new webview host (hello-watchdog.ts says why). */
  recover(): void | Promise<void>;
  /** Shared by this webview and those that replace it. */
  budget: RecoveryBudget;
  /** Names it in the hop trace ("editor 3"): a trace of two webviews says which one spoke and which was replaced. */
  kind: "sidebar" | "editor";
}

/** Numbers the chat webviews of this extension host, for the hop trace. */
let attached = 0;

/**
 * Wires one webview (sidebar view or editor panel) to its own RPC server. The sidebar's first document needs no hold
 * for the Sessions tree's first draw: the chat is registered after it (extension/activate.ts, the rest).
 */
export function attachChat(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  controller: ChatController,
  actions: HostActions,
  host: ChatWebviewHost,
  memory?: ShownMemory,
): ChatRpcServer {
  const media = vscode.Uri.joinPath(extensionUri, "media");
  webview.options = { enableScripts: true, localResourceRoots: [media, vscode.Uri.joinPath(extensionUri, "dist")] };
  const server = new ChatRpcServer(
    controller,
    actions,
    (message: ChatHostMessage) => void webview.postMessage(message),
    () => host.visible(),
    memory,
  );
  const label = `${host.kind} ${++attached}`;
  let spoke = false;
  const watchdog = new HelloWatchdog({
    boundMs: HELLO_BOUND_MS,
    budget: host.budget,
    ask: () => server.event({ type: "ping" }),
    recover: () => host.recover(),
    note: (what) => hop(`chat webview ${what} (${label})`),
    failed: () => undefined,
  });
  server.own(watchdog);
  server.own(
    webview.onDidReceiveMessage((message: unknown) => {
      // Any message at all, through this webview: its document is alive. The trace names who said hello.
      const method = (message as { method?: unknown } | null)?.method;
      if (!spoke || method === "hello" || method === "alive") hop(`chat webview ${String(method)} from ${label}`);
      spoke = true;
      watchdog.greeted();
      void server.handle(message);
    }),
  );
  // Shown again, a webview without retainContextWhenHidden loads its document anew.
  let shown = host.visible();
  server.own(
    host.onDidChangeVisibility(() => {
      if (shown === host.visible()) return;
      shown = host.visible();
      if (shown) watchdog.loading();
      else watchdog.hidden();
    }),
  );
  server.own(watchRules((folderKey) => server.rulesChanged(folderKey)));
  let gone = false;
  server.own({ dispose: () => void (gone = true) });
  const setHtml = () => {
    if (gone) return;
    hop(`chat webview html set (${label})`);
    webview.html = chatHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview.js")).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "chat.css")).toString(),
      codiconsUri: webview.asWebviewUri(vscode.Uri.joinPath(media, "codicons", "codicon.css")).toString(),
    });
    // The hello bound runs from when there is a document to say it.
    if (host.visible()) watchdog.loading();
  };
  setHtml();
  return server;
}

/** The sidebar chat. Restores from the webview's own state plus a catch-up, not retainContextWhenHidden. */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private server: ChatRpcServer | undefined;
  private view: vscode.WebviewView | undefined;
  private pending: SessionRef | undefined;
  private pendingConnect = false;
  private readonly pendingAttach: ResolvedAttachment[] = [];
  private pendingTarget: RevealTarget | undefined;
  private bringBack: ((ref: SessionRef) => Promise<void>) | undefined;
  private readonly didShow = new vscode.EventEmitter<SessionRef>();
  private readonly budget = recoveryBudget();
  /** A session shown from outside (tree, command) is now the one the view shows. */
  readonly onDidShow = this.didShow.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: ChatController,
    private readonly actions: HostActions,
    private readonly memory?: ShownMemory,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.server?.dispose();
    const server = attachChat(
      view.webview,
      this.extensionUri,
      this.controller,
      this.actions,
      {
        visible: () => view.visible,
        onDidChangeVisibility: view.onDidChangeVisibility,
        recover: () => this.recover(),
        budget: this.budget,
        kind: "sidebar",
      },
      this.memory,
    );
    server.onBringBack = this.bringBack;
    this.server = server;
    view.onDidDispose(() => {
      server.dispose();
      if (this.server === server) this.server = undefined;
    });
    if (this.pendingConnect) {
      this.pendingConnect = false;
      server.askConnect();
    }
    if (this.pendingAttach.length) server.attach(this.pendingAttach.splice(0));
    if (this.pending) {
      const ref = this.pending;
      const target = this.pendingTarget;
      this.pending = this.pendingTarget = undefined;
      void (target ? server.reveal(ref, target) : server.show(ref)).then(
        () => this.didShow.fire(ref),
        () => undefined,
      );
    }
  }

  /**
   * A new webview host for a sidebar chat whose document never said hello: hidden, VS Code drops the view
   * (its webview host with it), and shown again it resolves a new one here. Hiding is done by the view's own
   * toggle, so it works wherever the user put the view (sidebar, secondary sidebar, panel).
   */
  private async recover(): Promise<void> {
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.toggleVisibility`);
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** The session the sidebar chat shows, if its view was ever resolved. */
  get shown(): SessionRef | undefined {
    return this.server?.ref;
  }

  /** Shows `ref` in the sidebar chat, revealing it first. */
  async show(ref: SessionRef, target?: RevealTarget): Promise<void> {
    if (!this.server) {
      this.pending = ref;
      this.pendingTarget = target;
      await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
      return;
    }
    this.view?.show(true);
    await (target ? this.server.reveal(ref, target) : this.server.show(ref));
    this.didShow.fire(ref);
  }

  /** Reveals the sidebar chat and puts attachments in its composer (Add to Chat); a view still loading gets them after its hello. */
  async attach(attachments: ResolvedAttachment[]): Promise<void> {
    if (this.server) this.server.attach(attachments);
    else this.pendingAttach.push(...attachments);
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
  }

  /** The sidebar's conversation went to an editor tab: the sidebar shows a placeholder, if it showed `ref`. */
  moveAway(ref: SessionRef): boolean {
    const shown = this.server?.ref;
    if (!shown || !sameRef(shown, ref)) return false;
    return this.server!.moveAway() !== undefined;
  }

  /** The conversation the placeholder names, while it shows (or, before the view is resolved, will show). */
  get moved(): SessionRef | undefined {
    return this.server ? this.server.moved?.ref : this.memory?.moved()?.ref;
  }

  /** Called by the placeholder's "Bring Chat Back". */
  set onBringBack(bring: ((ref: SessionRef) => Promise<void>) | undefined) {
    this.bringBack = bring;
    if (this.server) this.server.onBringBack = bring;
  }

  /** Shows `ref` again without revealing the view (its editor tab closed). */
  async restore(ref: SessionRef): Promise<void> {
    if (!this.server) {
      this.pending = ref;
      return;
    }
    await this.server.show(ref);
    this.didShow.fire(ref);
  }

  /** Reveals the sidebar chat with its connect form open. */
  async showConnect(): Promise<void> {
    // Before the view is resolved, resolveWebviewView asks once the server exists.
    if (!this.server) this.pendingConnect = true;
    await vscode.commands.executeCommand(`${CHAT_VIEW_ID}.focus`);
    if (!this.pendingConnect) this.server?.askConnect();
  }

  dispose(): void {
    this.server?.dispose();
    this.didShow.dispose();
  }
}
