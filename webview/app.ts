import { render } from "lit-html";
import {
  sameRef,
  type ApprovalDecision,
  type ChatConfig,
  type ChatHostEvent,
  type ChatMethod,
  type ChatParams,
  type SessionRef,
  type ChatResult,
  type ChatSnapshot,
  type ModelChoice,
  type MovedChat,
  type SessionEvent,
} from "../core/protocol";
import type { ResolvedAttachment } from "../core/protocol";
import { MentionMenu } from "./views/mention-menu";
import { answerApproval, toggleFeedback, undoEdit, type CardHost } from "./card-actions";
import { VirtualList } from "./list";
import { Conversation, type Item } from "./conversation";
import { RpcClient, type VsCodeApi } from "./rpc";
import { renderItem, type RowContext } from "./views/message";
import { installChatKeys } from "./keys";
import { ConnectForm } from "./connect";
import { FindController } from "./find-controller";
import { ChatState } from "./chat-state";
import { SavedView } from "./resume";
import { applyHostEvent } from "./host-events";
import { SessionActions } from "./session-actions";
import type { ComposerState } from "./views/composer";
import { connectShown, shellView, type ShellApp } from "./shell";
import { onChatClick } from "./link-clicks";

/**
 * The chat view: its state (chat-state.ts), shown by one render of the shell (header, find bar, log, empty state,
 * composer) over the virtual list of the conversation. The host's events are applied by host-events.ts, what the
 * user does to sessions by session-actions.ts, and the view's own copy across a hide or reload by resume.ts.
 */
export class ChatApp implements ShellApp {
  readonly rpc: RpcClient;
  readonly conversation = new Conversation();
  readonly state = new ChatState();
  list: VirtualList<Item> | undefined;
  private readonly open = new Set<string>();
  private pendingDraft: (() => void) | undefined;
  private frame = 0;
  private readonly saved: SavedView;
  readonly actions = new SessionActions(this);
  readonly composer: ComposerState = { text: "", attachments: [] };
  readonly mentions: MentionMenu;
  private readonly rowContext: RowContext;
  readonly connect: ConnectForm;
  /** The find bar (Ctrl/Cmd+F) and reveals of search results. */
  readonly find: FindController;

  constructor(
    private readonly root: HTMLElement,
    api: VsCodeApi,
  ) {
    this.saved = new SavedView(api);
    this.rpc = new RpcClient(api, (event) => this.onEvent(event));
    this.rowContext = {
      conversation: this.conversation,
      open: this.open,
      readOnly: false,
      fork: (seq) => void this.actions.forkFrom(seq),
      restore: (seq, resend) => void this.actions.restoreTo(seq, resend),
      approve: (toolCallId, decision) => this.approve(toolCallId, decision),
      feedback: (toolCallId, open) => toggleFeedback(this.cardHost(), toolCallId, open),
      openDiff: (toolCallId) => void this.call("openDiff", { ref: this.ref()!, toolCallId }),
      undo: (toolCallId) => void undoEdit(this.cardHost(), toolCallId),
      retry: (turnEnd) => {
        const ref = this.ref();
        if (ref) void this.call("retry", { ref, turnEnd });
      },
      openSettings: (setting) => void this.call("openSettings", setting ? { setting } : {}),
    };
    this.connect = new ConnectForm({
      listModels: (params) => this.call("listModels", params),
      connect: (params) => this.call("connect", params),
      refresh: () => this.refresh(),
      connected: () => this.focusComposer(),
    });
    this.mentions = new MentionMenu({
      searchFiles: (query) => this.searchMentions("file", query),
      searchFolders: (query) => this.searchMentions("folder", query),
      resolve: (mention) => this.resolveMention(mention),
      attach: (a) => this.attach([a]),
      setText: (text) => (this.composer.text = text),
      refresh: () => this.refresh(),
    });
    root.addEventListener("click", (e) => onChatClick(this, root, e));
    installChatKeys(root, { running: () => this.state.running, stop: () => this.cancel() });
    const app = this;
    this.find = new FindController({
      conversation: this.conversation,
      get list() {
        return app.list;
      },
      ref: () => this.ref(),
      call: (method, params) => this.call(method, params),
      refresh: () => this.refresh(),
      prepend: (page) => this.conversation.prepend(page),
    });
    this.find.install(document);
  }

  /** Paints the saved session at once and catches up, or asks the host what to show (resume.ts). */
  start(): Promise<void> {
    return this.saved.resume(this);
  }

  ref(): SessionRef | undefined {
    return this.state.ref();
  }

  show(shown: ChatSnapshot): void {
    if (!performance.getEntriesByName("downcity:snapshot").length) performance.mark("downcity:snapshot");
    const { state } = this;
    // A reveal is done once, not saved with the view's state (a reload must not jump back to it).
    const { reveal, ...snapshot } = shown;
    state.snapshot = snapshot;
    state.closedMessage = state.moved = undefined;
    this.find.reset(snapshot.ref, reveal);
    state.liveEvents = [];
    state.running = snapshot.running;
    state.usage = snapshot.usage;
    state.model = snapshot.model;
    state.readOnly = snapshot.readOnly;
    this.conversation.show(snapshot);
    state.agentAsk = undefined;
    this.open.clear();
    this.refresh(true);
    this.list?.scrollToEnd();
    this.find.afterShow();
    this.saved.save(this);
    void this.loadRules();
  }

  /** The shown session is gone (or moved to an editor tab): nothing of it stays on screen (or in the saved state), and the view says why. */
  close(message: string | undefined, moved?: MovedChat): void {
    const { state } = this;
    state.snapshot = undefined;
    state.liveEvents = [];
    state.running = false;
    state.usage = undefined;
    state.readOnly = undefined;
    this.conversation.reset({ events: [], firstSeq: 0, lastSeq: 0, hasOlder: false });
    this.conversation.title = undefined;
    this.composer.text = "";
    this.composer.attachments = [];
    state.closedMessage = message;
    state.moved = moved;
    this.saved.clear();
    this.refresh(true);
  }

  setConfig(config: ChatConfig): void {
    this.state.config = config;
    this.refresh();
  }

  askConnect(): void {
    this.connect.ask();
  }

  private onEvent(event: ChatHostEvent): void {
    applyHostEvent(this, event);
  }

  appendEvent(event: SessionEvent): void {
    if (this.conversation.append(event)) {
      this.state.liveEvents.push(event);
      if (event.type === "session/title") this.conversation.title = (event.data as { title?: string }).title;
    }
  }

  setPendingDraft(apply: () => void): void {
    this.pendingDraft = apply;
  }

  flushDraft(): void {
    const apply = this.pendingDraft;
    this.pendingDraft = undefined;
    apply?.();
  }

  schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      // Drafts are not saved (a restore gets the live draft from the catch-up), so a
      // streaming frame does no serialising.
      const logChanged = this.saved.savedSeq !== this.conversation.lastSeq;
      this.flushDraft();
      this.refresh();
      if (logChanged) this.saved.save(this);
    });
  }

  async call<M extends ChatMethod>(method: M, params: ChatParams<M>): Promise<ChatResult<M> | undefined> {
    try {
      return await this.rpc.request(method, params);
    } catch (error) {
      this.conversation.notice("error", error instanceof Error ? error.message : String(error));
      this.refresh();
      return undefined;
    }
  }

  focusBox(atEnd = false): void {
    const box = this.root.querySelector<HTMLTextAreaElement>("textarea");
    box?.focus();
    if (atEnd) box?.setSelectionRange(box.value.length, box.value.length);
  }

  focusComposer(): void {
    this.root.querySelector<HTMLTextAreaElement>(".composer textarea")?.focus();
  }

  private approve(toolCallId: string, decision: ApprovalDecision): void {
    void answerApproval(this.cardHost(), toolCallId, decision);
  }

  /** What the card actions (approval-answers.ts) need of the app. */
  private cardHost(): CardHost {
    return {
      ref: () => this.ref(),
      conversation: this.conversation,
      call: (m, p) => this.call(m, p),
      refresh: () => this.refresh(),
    };
  }

  // The composer's host (views/composer.ts ComposerHost).
  send(): Promise<void> {
    return this.actions.send(() => this.find.forget());
  }

  typed(): void {
    if (this.state.warmAsked) return;
    this.state.warmAsked = true;
    void this.call("warm", {});
  }

  chooseAgent(agentId: string): void {
    this.actions.chooseAgent(agentId);
  }

  newSession(agentId?: string): Promise<void> {
    return this.actions.newSession(agentId);
  }

  loadEarlier(): Promise<void> {
    return this.actions.loadEarlier();
  }

  selectTitle(): void {
    this.root.querySelector<HTMLInputElement>(".title-input")?.select();
  }

  /** Re-renders the shell (shell.ts); the list re-renders only rows whose key is dirty. */
  refresh(initial = false): void {
    this.rowContext.readOnly = !!this.state.readOnly;
    render(shellView(this), this.root);
    if (!this.list) {
      const scroller = this.root.querySelector<HTMLElement>(".log-scroller")!;
      this.list = new VirtualList<Item>(
        scroller,
        scroller.querySelector<HTMLElement>(".log-inner")!,
        (item, el) => render(renderItem(item, this.rowContext), el),
        () => this.find.decorate(),
        () => this.refresh(),
      );
    }
    const changed = [...this.conversation.dirty];
    this.conversation.dirty.clear();
    this.list.setItems(this.conversation.items, initial ? this.conversation.items.map((i) => i.key) : changed);
    this.root.querySelectorAll<HTMLElement>("[data-ratio]").forEach((el) => {
      el.style.setProperty("--ratio", el.dataset.ratio!);
      if (el.dataset.offset) el.style.setProperty("--offset", el.dataset.offset);
    });
    if (initial) this.list.flush();
    // After the render: listing re-renders (its "asking…" hint), never inside one.
    if (connectShown(this)) this.connect.ensureListed();
  }

  jumpToLatest(): void {
    this.list?.follow();
    this.refresh();
    this.focusBox();
  }

  // Composer callbacks. With no session shown, mentions resolve in the first folder (where a new session starts).
  private folderKey(): { folderKey?: string } {
    const snapshot = this.state.snapshot;
    return snapshot ? { folderKey: snapshot.ref.folderKey } : {};
  }
  private async searchMentions(kind: "file" | "folder", query: string): Promise<string[]> {
    return (await this.call("searchMentions", { ...this.folderKey(), kind, query })) ?? [];
  }
  private async resolveMention(
    mention: ChatParams<"resolveMention">["mention"],
  ): Promise<ResolvedAttachment | { error: string }> {
    try {
      return await this.rpc.request("resolveMention", { ...this.folderKey(), mention });
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }
  /** Adds attachments to the composer; the same one twice (same label and text) is kept once. */
  attach(attachments: ResolvedAttachment[]): void {
    for (const a of attachments) {
      if (!this.composer.attachments.some((b) => b.info.label === a.info.label && b.text === a.text))
        this.composer.attachments.push(a);
    }
    if (this.mentions.state?.error) this.mentions.close();
    this.refresh();
  }
  dropUris(uris: string[]): void {
    void (async () => {
      for (const uri of uris.slice(0, 20)) {
        const result = await this.resolveMention({ kind: "file", path: uri });
        if ("error" in result) {
          this.mentions.state = { options: [], active: 0, token: "", error: result.error };
          this.refresh();
        } else this.attach([result]);
      }
    })();
  }
  async loadRules(): Promise<void> {
    const ref = this.ref();
    if (!ref) return;
    const rules = await this.rpc.request("sessionRules", { ref }).catch(() => undefined);
    const { state } = this;
    if (!rules || !state.snapshot || !sameRef(ref, state.snapshot.ref)) return;
    if (JSON.stringify(rules) === JSON.stringify(state.rules)) return;
    state.rules = rules;
    this.refresh();
  }
  cancel(): void {
    const ref = this.ref();
    if (ref) void this.call("cancel", { ref });
  }
  selectModel(model: ModelChoice): void {
    const ref = this.ref();
    this.state.model = model;
    if (ref) void this.call("selectModel", { ref, model });
  }
}
