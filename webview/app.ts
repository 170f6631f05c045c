// Over 350 lines: not split yet (issue 22 item 4: restore, the header and actions); other engineers were landing in it this round.
import { html, nothing, render, type TemplateResult } from "lit-html";
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
  type ChatSessionItem,
} from "../core/protocol";
import type { ResolvedAttachment, SessionRules } from "../core/protocol";
import { MentionMenu } from "./views/mention-menu";
import { pendingTokens } from "./views/mention-chips";
import { rulesChips } from "./views/rules-chips";
import { answerApproval, undoEdit, type CardHost } from "./card-actions";
import { VirtualList } from "./list";
import { Conversation, type Item } from "./conversation";
import { RpcClient, type VsCodeApi } from "./rpc";
import { renderItem, type RowContext } from "./views/message";
import { composer, type ComposerState } from "./views/composer";
import { installChatKeys } from "./keys";
import { agentConfirm, type AgentAsk } from "./views/agent-confirm";
import { jumpToLatest } from "./views/jump-to-latest";
import { meterView } from "./views/meter";
import { ConnectForm } from "./connect";
import { connectForm } from "./views/connect-form";
import { FindController } from "./find-controller";
import { findBar } from "./views/find-bar";
import { movedChat } from "./views/moved-chat";

/** What survives a hide / reload: enough to paint at once, then a catch-up asks for the rest. */
interface SavedState {
  v: 1;
  snapshot: ChatSnapshot;
}
const SAVE_LIMIT = 2_000_000;

export class ChatApp {
  readonly rpc: RpcClient;
  readonly conversation = new Conversation();
  private config: ChatConfig | undefined;
  private snapshot: ChatSnapshot | undefined;
  /** Live events since the snapshot, kept so a reload restores them too. */
  private liveEvents: SessionEvent[] = [];
  private running = false;
  private usage: ChatSnapshot["usage"];
  private model: ModelChoice | undefined;
  private readOnly: string | undefined;
  list: VirtualList<Item> | undefined;
  private readonly open = new Set<string>();
  private editingTitle = false;
  /** Why no session is shown: the one shown was deleted (said in the empty state). */
  private closedMessage: string | undefined;
  /** The conversation moved to an editor tab: the placeholder names it and offers it back. */
  private moved: MovedChat | undefined;
  private sessions: ChatSessionItem[] | undefined;
  private loadingEarlier = false;
  private pendingDraft: (() => void) | undefined;
  private frame = 0;
  private saveTimer: ReturnType<typeof setTimeout> | undefined;
  readonly composer: ComposerState = { text: "", attachments: [] };
  readonly mentions: MentionMenu;
  /** The rules files the shown session's next request uses (asked at each show and turn end). */
  private rules: SessionRules | undefined;
  private readonly rowContext: RowContext;
  /** The agent the next new session uses (the picker, with no session open or before a confirmed switch). */
  private chosenAgent: string | undefined;
  /** A switch of agent waiting for the user's answer: the open session cannot change agent. */
  private agentAsk: AgentAsk | undefined;
  /** The host was asked to warm the model's SDK (once per document, on the first keystroke). */
  private warmAsked = false;
  /** A first message is starting its session: Enter again must not start a second one. */
  private starting = false;
  readonly connect: ConnectForm;
  /** The find bar (Ctrl/Cmd+F) and reveals of search results. */
  readonly find: FindController;

  constructor(
    private readonly root: HTMLElement,
    private readonly api: VsCodeApi,
  ) {
    this.rpc = new RpcClient(api, (event) => this.onEvent(event));
    this.rowContext = {
      conversation: this.conversation,
      open: this.open,
      readOnly: false,
      fork: (seq) => void this.forkFrom(seq),
      restore: (seq, resend) => void this.restoreTo(seq, resend),
      approve: (toolCallId, decision) => this.approve(toolCallId, decision),
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
      connected: () => this.root.querySelector<HTMLElement>(".composer textarea")?.focus(),
    });
    this.mentions = new MentionMenu({
      searchFiles: (query) => this.searchMentions("file", query),
      searchFolders: (query) => this.searchMentions("folder", query),
      resolve: (mention) => this.resolveMention(mention),
      attach: (a) => this.attach([a]),
      setText: (text) => (this.composer.text = text),
      refresh: () => this.refresh(),
    });
    root.addEventListener("click", (e) => this.onClick(e));
    installChatKeys(root, { running: () => this.running, stop: () => this.cancel() });
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

  async start(): Promise<void> {
    const saved = this.api.getState() as SavedState | undefined;
    if (saved?.v === 1 && saved.snapshot) {
      // Paint what the view had before it was hidden, then fetch only what it missed.
      this.show(saved.snapshot);
      const hello = await this.call("hello", { restore: saved.snapshot.ref });
      // A session shown from outside (a command, the tree) while the view was hidden wins
      // over the saved one: it is shown, and nothing of the replaced session is caught up.
      const outside = hello?.snapshot && !sameRef(hello.snapshot.ref, saved.snapshot.ref) ? hello.snapshot : undefined;
      // The model may have changed while the view was hidden.
      if (hello?.snapshot && !outside) this.model = hello.snapshot.model;
      if (hello) this.setConfig(hello.config);
      if (hello?.connect) this.connect.ask();
      if (hello?.moved) return this.close(undefined, hello.moved);
      if (hello && !hello.snapshot) {
        // The saved session no longer opens (deleted while this view was away).
        this.close(
          "This session was deleted or can no longer be opened. Start a new session, or open another one from the Sessions view.",
        );
        return;
      }
      if (outside) {
        this.show(outside);
        return;
      }
      // A switch that arrived meanwhile (a session-switched event, a click) is what the view shows now.
      const switched = () => !sameRef(this.ref()!, saved.snapshot.ref);
      if (switched()) return;
      const catchUp = await this.call("catchUp", { ref: saved.snapshot.ref, afterSeq: this.conversation.lastSeq });
      if (switched()) return;
      if (catchUp?.kind === "reset") this.show(catchUp.snapshot);
      else if (catchUp) {
        this.conversation.catchUp(catchUp, (event) => this.appendEvent(event));
        this.running = catchUp.running;
        this.usage = catchUp.usage;
        this.readOnly = catchUp.readOnly;
        this.refresh();
      }
      return;
    }
    const hello = await this.call("hello", {});
    if (!hello) return;
    this.setConfig(hello.config);
    if (hello.connect) this.connect.ask();
    if (hello.snapshot) this.show(hello.snapshot);
    else if (hello.moved) this.close(undefined, hello.moved);
    else this.refresh();
  }

  ref(): SessionRef | undefined {
    return this.snapshot?.ref;
  }

  show(shown: ChatSnapshot): void {
    if (!performance.getEntriesByName("downcity:snapshot").length) performance.mark("downcity:snapshot");
    // A reveal is done once, not saved with the view's state (a reload must not jump back to it).
    const { reveal, ...snapshot } = shown;
    this.snapshot = snapshot;
    this.closedMessage = this.moved = undefined;
    this.find.reset(snapshot.ref, reveal);
    this.liveEvents = [];
    this.running = snapshot.running;
    this.usage = snapshot.usage;
    this.model = snapshot.model;
    this.readOnly = snapshot.readOnly;
    this.conversation.show(snapshot);
    this.agentAsk = undefined;
    this.open.clear();
    this.refresh(true);
    this.list?.scrollToEnd();
    this.find.afterShow();
    this.save();
    void this.loadRules();
  }

  /** The shown session is gone (or moved to an editor tab): nothing of it stays on screen (or in the saved state), and the view says why. */
  private close(message: string | undefined, moved?: MovedChat): void {
    this.snapshot = undefined;
    this.liveEvents = [];
    this.running = false;
    this.usage = undefined;
    this.readOnly = undefined;
    this.conversation.reset({ events: [], firstSeq: 0, lastSeq: 0, hasOlder: false });
    this.conversation.title = undefined;
    this.composer.text = "";
    this.composer.attachments = [];
    this.closedMessage = message;
    this.moved = moved;
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    this.api.setState(undefined);
    this.refresh(true);
  }

  private setConfig(config: ChatConfig): void {
    this.config = config;
    this.refresh();
  }

  private onEvent(event: ChatHostEvent): void {
    switch (event.type) {
      case "session-switched":
        this.show(event.snapshot);
        return;
      case "config": {
        // Only what changed arrives; before hello there is nothing to apply it to.
        if (!this.config) return;
        const { restricted, ...rest } = event.changes;
        const next: ChatConfig = { ...this.config, ...rest };
        if (restricted === null) delete next.restricted;
        else if (restricted !== undefined) next.restricted = restricted;
        this.setConfig(next);
        return;
      }
      case "sessions-changed":
        this.sessions = undefined;
        return;
      case "session-closed":
        if (this.snapshot && sameRef(event.ref, this.snapshot.ref)) this.close(event.message);
        return;
      case "connect":
        this.connect.ask();
        return;
      case "attach":
        this.attach(event.attachments);
        this.root.querySelector<HTMLTextAreaElement>(".composer textarea")?.focus();
        return;
      case "rules-changed":
        if (this.snapshot?.ref.folderKey === event.folderKey) void this.loadRules();
        return;
      case "session-moved":
        if (this.snapshot && sameRef(event.moved.ref, this.snapshot.ref)) this.close(undefined, event.moved);
        // The placeholder's session was renamed (from the tree, the tab, another window): it names the new title.
        else if (!this.snapshot && this.moved && sameRef(event.moved.ref, this.moved.ref)) {
          this.moved = event.moved;
          this.refresh();
        }
        return;
      case "model":
        if (this.snapshot && sameRef(event.ref, this.snapshot.ref)) this.model = event.model;
        this.refresh();
        return;
      case "agent": {
        const e = event.event;
        if (
          !this.snapshot ||
          e.sessionId !== this.snapshot.ref.sessionId ||
          event.folderKey !== this.snapshot.ref.folderKey
        )
          return;
        if (e.type === "draft") {
          // Coalesced: a burst of deltas costs one render per animation frame.
          this.pendingDraft = () => this.conversation.setDraft(e.draftId, e.blocks);
          this.schedule();
          return;
        }
        this.flushDraft();
        if (e.type === "session-event") {
          this.appendEvent(e.event);
        } else {
          if (e.type === "turn-started") this.running = true;
          if (e.type === "turn-ended") {
            this.running = false;
            void this.loadRules();
          }
          if (e.type === "usage") this.usage = e;
          if (e.type === "compaction-started" && this.usage?.ratio !== undefined)
            this.conversation.compactedAt = this.usage.ratio;
          this.conversation.applyAgent(e);
        }
        this.schedule();
        return;
      }
    }
  }

  private appendEvent(event: SessionEvent): void {
    if (this.conversation.append(event)) {
      this.liveEvents.push(event);
      if (event.type === "session/title") this.conversation.title = (event.data as { title?: string }).title;
    }
  }

  private flushDraft(): void {
    const apply = this.pendingDraft;
    this.pendingDraft = undefined;
    apply?.();
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      // Drafts are not saved (a restore gets the live draft from the catch-up), so a
      // streaming frame does no serialising.
      const logChanged = this.savedSeq !== this.conversation.lastSeq;
      this.flushDraft();
      this.refresh();
      if (logChanged) this.save();
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

  /**
   * "Fork from here" on a user message: a fork that ends before it, opened with the
   * message's text in the composer to edit and send. Before the first message there is no
   * history to keep: a new session of the same agent takes the text.
   */
  async forkFrom(seq: number): Promise<void> {
    const ref = this.ref();
    const item = this.conversation.items.find((i) => i.kind === "user" && i.seq === seq);
    if (!ref || item?.kind !== "user") return;
    const text = item.blocks
      .map((b) => (b.type === "text" ? b.text : ""))
      .join("\n")
      .trim();
    const at = item.forkAt ?? seq - 1;
    const snapshot =
      at >= 1
        ? await this.call("fork", { ref, atSeq: at })
        : await this.call("newSession", {
            folderKey: ref.folderKey,
            ...(this.config?.agents.some((a) => a.id === ref.agentId) ? { agentId: ref.agentId } : {}),
          });
    if (!snapshot) return;
    this.show(snapshot);
    this.composer.text = text;
    this.refresh();
    const box = this.root.querySelector<HTMLTextAreaElement>("textarea");
    box?.focus();
    box?.setSelectionRange(box.value.length, box.value.length);
  }

  /**
   * "Restore to Here" / "Edit and Resend": the host previews and restores; a conversation
   * continued in a fork is shown, and for a resend the message's text waits in the composer.
   */
  async restoreTo(seq: number, resend: boolean): Promise<void> {
    const ref = this.ref();
    if (!ref) return;
    const item = this.conversation.items.find((i) => i.kind === "user" && i.seq === seq);
    const result = await this.call("restoreToMessage", { ref, seq, ...(resend ? { resend } : {}) });
    if (!result?.snapshot) return;
    this.show(result.snapshot);
    if (resend && item?.kind === "user") {
      this.composer.text = item.blocks
        .map((b) => (b.type === "text" ? b.text : ""))
        .join("\n")
        .trim();
      this.refresh();
      this.root.querySelector<HTMLTextAreaElement>("textarea")?.focus();
    }
  }

  async loadEarlier(): Promise<void> {
    const ref = this.ref();
    if (!ref || this.loadingEarlier || !this.conversation.hasOlder) return;
    this.loadingEarlier = true;
    this.refresh();
    const page = await this.call("loadEarlier", { ref, beforeSeq: this.conversation.firstSeq });
    this.loadingEarlier = false;
    if (page) this.conversation.prepend(page);
    this.refresh();
  }

  /**
   * Sends the composer's message. With no session open (or a new agent chosen for an empty
   * one) it first starts a session of the selected agent: one step for the user. The text
   * goes back into the composer if it could not be sent, so nothing typed is lost.
   */
  async send(): Promise<void> {
    const text = this.composer.text.trim();
    if ((!text && !this.composer.attachments.length) || this.readOnly || this.config?.restricted || this.starting)
      return;
    const attachments = this.composer.attachments.slice();
    this.composer.text = "";
    this.composer.attachments = [];
    this.find.forget();
    this.refresh();
    let ref = this.ref();
    const agentId = this.chosenAgent;
    const prompt = (to: SessionRef) =>
      this.call("prompt", { ref: to, text, ...(attachments.length ? { attachments } : {}) });
    let sending: ReturnType<typeof prompt> | undefined;
    if (!ref || (agentId && agentId !== ref.agentId)) {
      this.starting = true;
      try {
        const snapshot = await this.call("newSession", {
          ...(this.snapshot ? { folderKey: this.snapshot.ref.folderKey } : {}),
          ...(agentId ? { agentId } : {}),
        });
        if (!snapshot) return this.giveBack(text, attachments);
        ref = snapshot.ref;
        // Posted before the new session's first render (same task: no event can come between), so the
        // host starts the turn while the view draws (issue 19, first message → first token).
        sending = prompt(ref);
        this.show(snapshot);
        this.chosenAgent = undefined;
      } finally {
        this.starting = false;
      }
    }
    this.list?.follow();
    const sent = await (sending ?? prompt(ref));
    if (!sent) this.giveBack(text, attachments);
  }

  typed(): void {
    if (this.warmAsked) return;
    this.warmAsked = true;
    void this.call("warm", {});
  }

  /** Puts an unsent message back, unless the user already typed another. */
  private giveBack(text: string, attachments: ResolvedAttachment[]): void {
    if (this.composer.text.trim()) return;
    this.composer.text = text;
    this.composer.attachments = attachments;
    this.refresh();
  }

  /**
   * The agent picker. An agent keeps its own sessions, so the open session cannot change
   * agent: with nothing said yet the next message starts a session of the chosen one;
   * otherwise the user is asked before a new session replaces this conversation.
   */
  chooseAgent(agentId: string): void {
    const current = this.snapshot?.ref.agentId;
    this.agentAsk = undefined;
    if (!this.snapshot || agentId === current || (this.conversation.items.length === 0 && !this.running)) {
      this.chosenAgent = agentId === current ? undefined : agentId;
    } else {
      const name = (id: string | undefined) => this.config?.agents.find((a) => a.id === id)?.name ?? id ?? "";
      this.agentAsk = { agentId, agentName: name(agentId), currentName: name(current) };
    }
    this.refresh();
  }

  private answerAgentAsk(start: boolean): void {
    const ask = this.agentAsk;
    this.agentAsk = undefined;
    if (start && ask) void this.newSession(ask.agentId);
    else this.refresh();
    this.root.querySelector<HTMLTextAreaElement>("textarea")?.focus();
  }

  private onClick(e: MouseEvent): void {
    const target = e.target as HTMLElement;
    const anchor = target.closest("a");
    if (anchor && this.root.contains(anchor)) {
      // Links never navigate the webview: the host confirms and opens them.
      e.preventDefault();
      const href = anchor.getAttribute("href");
      if (href && this.snapshot) void this.call("openLink", { folderKey: this.snapshot.ref.folderKey, href });
      return;
    }
    const action = target.closest<HTMLElement>("[data-action]");
    if (!action) return;
    const code = action.closest(".code-block")?.querySelector("pre")?.textContent ?? "";
    if (action.dataset.action === "copy") void this.call("copy", { text: code }).then((done) => done && copied(action));
    if (action.dataset.action === "insert") void this.call("insertAtCursor", { text: code });
  }

  private savedSeq = -1;

  private save(): void {
    if (this.saveTimer || !this.snapshot) return;
    this.savedSeq = this.conversation.lastSeq;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      if (!this.snapshot) return;
      const page = this.snapshot.page;
      const events = [...page.events, ...this.liveEvents];
      const state: SavedState = {
        v: 1,
        snapshot: {
          ...this.snapshot,
          title: this.conversation.title,
          page: { ...page, events, lastSeq: this.conversation.lastSeq },
          draft: undefined,
          pendingApprovals: [],
          running: this.running,
          usage: this.usage,
        },
      };
      // A huge Active page is not worth storing: the host resends it on reload.
      if (JSON.stringify(state).length > SAVE_LIMIT) this.api.setState(undefined);
      else this.api.setState(state);
    }, 300);
  }

  async toggleSessions(): Promise<void> {
    if (this.sessions) {
      this.sessions = undefined;
    } else {
      this.sessions = (await this.call("listSessions", {})) ?? [];
    }
    this.refresh();
  }

  private header(): TemplateResult {
    const ref = this.ref();
    const title = this.conversation.title ?? "New session";
    const titleView = this.editingTitle
      ? html`<input
          class="title-input"
          aria-label="Session title"
          .value=${title}
          @keydown=${(e: KeyboardEvent) => this.titleKey(e)}
          @blur=${() => ((this.editingTitle = false), this.refresh())}
        />`
      : html`<button
          type="button"
          class="title"
          title="Rename"
          aria-label="Session title: ${title}. Rename"
          ?disabled=${!ref || !!this.readOnly}
          @click=${() => this.editTitle()}
        >
          ${title}
        </button>`;
    return html`<header class="chat-header">
        ${titleView}
        <span class="spacer"></span>
        <button
          type="button"
          class="icon-button"
          aria-label="Sessions"
          title="Sessions"
          aria-expanded=${this.sessions ? "true" : "false"}
          @click=${() => void this.toggleSessions()}
        >
          <i aria-hidden="true" class="codicon codicon-list-unordered"></i>
        </button>
        <button
          type="button"
          class="icon-button"
          aria-label="New session"
          title="New session"
          @click=${() => void this.newSession()}
        >
          <i aria-hidden="true" class="codicon codicon-add"></i>
        </button>
        <button
          type="button"
          class="icon-button"
          aria-label="Fork session"
          title="Fork session"
          ?disabled=${!ref}
          @click=${() => ref && void this.call("fork", { ref }).then((s) => s && this.show(s))}
        >
          <i aria-hidden="true" class="codicon codicon-repo-forked"></i>
        </button>
        <button
          type="button"
          class="icon-button"
          aria-label="Export session"
          title="Export session"
          ?disabled=${!ref}
          @click=${() => ref && void this.call("exportSession", { ref })}
        >
          <i aria-hidden="true" class="codicon codicon-export"></i>
        </button>
      </header>
      ${this.sessions ? this.sessionList(this.sessions) : nothing}`;
  }

  private sessionList(sessions: ChatSessionItem[]): TemplateResult {
    return html`<nav class="session-list" aria-label="Sessions">
      <ul>
        ${sessions.map(
          (s) =>
            html`<li>
              <button
                type="button"
                class=${this.ref() && sameRef(s.ref, this.ref()!) ? "current" : ""}
                @click=${() => void this.switchTo(s.ref)}
              >
                ${s.running ? html`<i aria-hidden="true" class="codicon codicon-loading codicon-modifier-spin"></i>` : nothing}${s.title ?? s.ref.sessionId}
              </button>
            </li>`,
        )}
      </ul>
    </nav>`;
  }

  private async switchTo(ref: SessionRef): Promise<void> {
    this.sessions = undefined;
    const snapshot = await this.call("switchSession", { ref });
    if (snapshot) this.show(snapshot);
  }

  async newSession(agentId?: string): Promise<void> {
    this.sessions = undefined;
    const agent = agentId ?? this.chosenAgent;
    const snapshot = await this.call("newSession", {
      ...(this.snapshot ? { folderKey: this.snapshot.ref.folderKey } : {}),
      ...(agent ? { agentId: agent } : {}),
    });
    if (!snapshot) return;
    this.chosenAgent = undefined;
    this.show(snapshot);
  }

  private editTitle(): void {
    this.editingTitle = true;
    this.refresh();
    this.root.querySelector<HTMLInputElement>(".title-input")?.select();
  }

  private titleKey(e: KeyboardEvent): void {
    const input = e.currentTarget as HTMLInputElement;
    if (e.key === "Escape") {
      // Leaves the edit only; the chat's Escape (stop the run) does not apply here.
      e.preventDefault();
      this.editingTitle = false;
      this.refresh();
    } else if (e.key === "Enter") {
      const title = input.value.trim();
      const ref = this.ref();
      this.editingTitle = false;
      if (title && ref) {
        this.conversation.title = title;
        void this.call("rename", { ref, title });
      }
      this.refresh();
    }
  }

  private historyBar(): TemplateResult | typeof nothing {
    if (!this.snapshot) return nothing;
    const c = this.conversation;
    return html`<div class="history-bar">
      ${
        c.hasOlder
          ? html`<button
              type="button"
              class="secondary"
              ?disabled=${this.loadingEarlier}
              @click=${() => void this.loadEarlier()}
            >
              <i aria-hidden="true" class="codicon codicon-fold-up"></i> Load earlier
            </button>`
          : html`<span class="history-start">Start of session</span>`
      }
    </div>`;
  }

  private emptyState(): TemplateResult | typeof nothing {
    if (this.connectShown()) return connectForm(this.connect, !!this.config?.providerConfigured);
    if (!this.snapshot && this.moved) {
      const { ref } = this.moved;
      return movedChat(this.moved, {
        bringBack: () => void this.call("bringBack", { ref }),
        newSession: () => void this.newSession(),
      });
    }
    if (!this.snapshot && this.closedMessage) {
      return html`<div class="empty-state" role="status">
        <i aria-hidden="true" class="codicon codicon-trash"></i>
        <h2>Session deleted</h2>
        <p>${this.closedMessage}</p>
        <div class="empty-buttons">
          <button type="button" class="primary" @click=${() => void this.newSession()}>New Session</button>
        </div>
      </div>`;
    }
    if (!this.snapshot) {
      return html`<div class="empty-state">
        <i aria-hidden="true" class="codicon codicon-comment-discussion"></i>
        <h2>Ask the agent</h2>
        <p>Type a message below to start a session, or open one from the Sessions view.</p>
        <div class="empty-buttons">
          <button type="button" class="primary" @click=${() => void this.newSession()}>New Session</button>
        </div>
      </div>`;
    }
    if (this.conversation.items.length === 0)
      return html`<div class="empty-hint">
        Ask the agent about this workspace. Type <kbd>@</kbd> to attach a file.
      </div>`;
    return nothing;
  }

  private meter(): TemplateResult {
    return meterView(this.usage, this.model, this.conversation.compactedAt, pendingTokens(this.composer.attachments));
  }

  /** The connect form shows with no provider configured, or when asked for (Add a model…). */
  private connectShown(): boolean {
    return Boolean(this.config && (!this.config.providerConfigured || this.connect.state.asked));
  }

  /** Re-renders the shell; the list re-renders only rows whose key is dirty. */
  refresh(initial = false): void {
    this.rowContext.readOnly = !!this.readOnly;
    // A form asked for over a configured chat replaces the composer (both have a "Model" field).
    const composerView =
      this.connect.state.asked && this.connectShown()
        ? nothing
        : composer(this, {
            running: this.running,
            disabled: !!this.readOnly || !!this.config?.restricted || this.starting,
            readOnly: this.readOnly ?? this.config?.restricted,
            // The form has its own "Model" field: no second one beside it.
            models: this.connectShown() ? [] : (this.config?.models ?? []),
            model: this.model,
            agents: this.config?.agents ?? [],
            agentId: this.agentAsk?.agentId ?? this.chosenAgent ?? this.snapshot?.ref.agentId,
            meter: this.meter(),
            ask: this.agentAsk ? agentConfirm(this.agentAsk, (start) => this.answerAgentAsk(start)) : nothing,
            rules: rulesChips(this.rules, (path) => {
              const ref = this.ref();
              if (ref) void this.call("openRulesFile", { ref, path });
            }),
          });
    render(
      html`${this.header()}${findBar(this.find)}${this.historyBar()}
        <div class="log-area">
          <div class="log-scroller" role="log" aria-label="Conversation" aria-live="polite" tabindex="0">
            <div class="log-inner"></div>
          </div>
          ${this.list && !this.list.pinned && this.conversation.items.length ? jumpToLatest(() => this.jumpToLatest()) : nothing}
        </div>
        ${this.emptyState()}${composerView}`,
      this.root,
    );
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
    if (this.connectShown()) this.connect.ensureListed();
  }

  private jumpToLatest(): void {
    this.list?.follow();
    this.refresh();
    this.root.querySelector<HTMLTextAreaElement>("textarea")?.focus();
  }

  // Composer callbacks. With no session shown, mentions resolve in the first folder (where a new session starts).
  private folderKey(): { folderKey?: string } {
    return this.snapshot ? { folderKey: this.snapshot.ref.folderKey } : {};
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
  private async loadRules(): Promise<void> {
    const ref = this.ref();
    if (!ref) return;
    const rules = await this.rpc.request("sessionRules", { ref }).catch(() => undefined);
    if (!rules || !this.snapshot || !sameRef(ref, this.snapshot.ref)) return;
    if (JSON.stringify(rules) === JSON.stringify(this.rules)) return;
    this.rules = rules;
    this.refresh();
  }
  cancel(): void {
    const ref = this.ref();
    if (ref) void this.call("cancel", { ref });
  }
  selectModel(model: ModelChoice): void {
    const ref = this.ref();
    this.model = model;
    if (ref) void this.call("selectModel", { ref, model });
  }
}

/** "Copied" on the Copy button for a moment (it is re-rendered with the row at the latest). */
function copied(button: HTMLElement): void {
  const label =
    button.querySelector(".copied-text") ??
    button.appendChild(Object.assign(document.createElement("span"), { className: "copied-text" }));
  label.textContent = "Copied";
  button.setAttribute("aria-label", "Copied");
  setTimeout(() => {
    label.remove();
    button.setAttribute("aria-label", "Copy code");
  }, 2000);
}
