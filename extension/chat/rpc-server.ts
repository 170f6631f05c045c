// Over 350 lines: what one chat view shows (the shown session, one shown from outside, a pending reveal, the moved-chat placeholder, what the view was told) and every handler and host push that changes it, read together; the methods that need none of it are rpc-handlers.ts.
import {
  ChatMethods,
  parseChatRequest,
  sameRef,
  type AgentEvent,
  type ChatConfig,
  type ChatHostEvent,
  type ChatHostMessage,
  type SessionRef,
  type ChatRequest,
  type ChatSnapshot,
  type EditDetails,
  type ModelChoice,
  type ResolvedAttachment,
  type MovedChat,
  type RevealTarget,
} from "../../core/protocol";
import { hop, type SessionChange } from "../../core/runtime";
import type { ChatController } from "./controller";
import { ChatError, SESSION_GONE } from "./errors";
import type { HostActions } from "./host-actions";
import type { Disposable } from "./folders";
import { configChanges, sameJson, viewlessHandlers, type ChatHandlers } from "./rpc-handlers";
import type { ShownMemory } from "./shown-memory";

/**
 * One view's end of the RPC: validates every webview message before acting on it (a
 * malformed one gets an error reply and changes nothing), runs it on the controller
 * (rpc-handlers.ts) or on what this view shows, and forwards the shown session's agent
 * events. Knows nothing of VS Code.
 */
export class ChatRpcServer implements Disposable {
  private shown: SessionRef | undefined;
  /**
   * A session shown from outside (tree, command) since the webview last said hello. A
   * hidden view's document is gone and the switch event is lost with it; when the view
   * comes back its hello carries the session it had saved, which must not win over this.
   */
  private shownFromOutside: SessionRef | undefined;
  private switching: Promise<void> = Promise.resolve();
  /** A reveal sent with a switch, kept until the webview has it (a reloading view gets it in its hello). */
  private pendingReveal: { ref: SessionRef; target: RevealTarget } | undefined;
  private watching: Disposable | undefined;
  /** Edit details seen live, so "open diff" uses the host's copy, never the webview's. */
  private readonly edits = new Map<string, EditDetails>();
  private readonly handlers: ChatHandlers;
  /** What the webview was last told (after hello): a config change sends only what differs. */
  private told: { config?: ChatConfig; model?: ModelChoice | undefined } = {};
  private readonly configChange: Disposable;
  private readonly sessionChange: Disposable;
  /** Whether the shown session was archived when last opened: archiving or unarchiving it reopens the view. */
  private shownArchived = false;
  /** The shown session's title changed (the editor chat's tab follows it). */
  onTitle: ((title: string | undefined) => void) | undefined;
  /** The connect form was asked for (Add a model…) and the view has not opened it yet: its next hello does. */
  private connectAsked = false;
  /** A hello was answered: events now reach a live document. */
  private greeted = false;
  private readonly owned: Disposable[] = [];
  private readonly toAttach: ResolvedAttachment[] = [];
  /** The conversation this view handed to an editor tab; its placeholder stays until another session is shown. */
  private movedAway: MovedChat | undefined;
  /** The shown session's title, as last heard (the moved-chat placeholder names it). */
  private title: string | undefined;
  /** The placeholder's "Bring Chat Back" (views.ts closes the editor tab and shows the session here). */
  onBringBack: ((ref: SessionRef) => Promise<void>) | undefined;

  constructor(
    private readonly controller: ChatController,
    actions: HostActions,
    private readonly post: (message: ChatHostMessage) => void,
    private readonly visible: () => boolean,
    /** The sidebar's: what it shows outlives a window reload even when the webview's saved state did not. */
    private readonly memory?: ShownMemory,
  ) {
    const c = controller;
    // The sidebar's placeholder outlives a window reload, as the editor tab it names does.
    this.movedAway = memory?.moved();
    this.configChange = controller.onDidChangeConfig((config) => this.configChanged(config));
    this.sessionChange = controller.onSessionChange((folderKey, change) => void this.sessionChanged(folderKey, change));
    this.handlers = {
      ...viewlessHandlers(c, actions),
      hello: async ({ restore }) => {
        await this.switching;
        const config = await c.config();
        const remembered = this.memory?.get();
        const ref = this.shownFromOutside ?? restore ?? this.shown ?? remembered;
        this.shownFromOutside = undefined;
        // A reloading sidebar whose conversation moved to an editor tab keeps its placeholder.
        const moved = this.movedAway && (!ref || sameRef(ref, this.movedAway.ref)) ? this.movedAway : undefined;
        if (moved) {
          this.told.config = config;
          return { config, moved };
        }
        const snapshot = ref ? await c.open(ref).catch(() => undefined) : undefined;
        // A remembered session that no longer opens (deleted meanwhile) is forgotten.
        if (!snapshot && ref && ref === remembered) this.memory?.set(undefined);
        this.told.config = config;
        if (snapshot) this.opened(snapshot);
        const reveal =
          snapshot && this.pendingReveal && sameRef(this.pendingReveal.ref, snapshot.ref)
            ? this.pendingReveal.target
            : undefined;
        this.pendingReveal = undefined;
        const connect = this.connectAsked ? { connect: true } : {};
        this.connectAsked = false;
        return snapshot
          ? { config, snapshot: reveal ? { ...snapshot, reveal } : snapshot, ...connect }
          : { config, ...connect };
      },
      catchUp: async ({ ref, afterSeq }) => {
        const result = await c.catchUp(ref, afterSeq);
        // A session shown from outside meanwhile is what the view shows now (it drops this catch-up).
        if (!this.shownFromOutside || sameRef(this.shownFromOutside, ref)) this.follow(ref);
        return result;
      },
      switchSession: async ({ ref }) => this.opened(await c.open(ref)),
      newSession: async ({ folderKey, agentId }) => this.opened(await c.open(await c.create(folderKey, agentId))),
      fork: async ({ ref, atSeq }) => this.opened(await c.open(await c.fork(ref, atSeq))),
      restoreToMessage: async ({ ref, seq, resend }) => {
        if (!actions.restoreToMessage) throw new ChatError("failed", "restore is not available in this host");
        const done = await actions.restoreToMessage(ref, seq, resend === true);
        return done?.fork
          ? { restored: true, snapshot: this.opened(await c.open(done.fork)) }
          : { restored: done !== undefined };
      },
      selectModel: async ({ ref, model }) => {
        c.selectModel(ref, model);
        if (this.shown && sameRef(this.shown, ref)) this.told.model = model;
        return {};
      },
      openDiff: async ({ ref, toolCallId }) => {
        // An edit still waiting for its answer reopens its review (with the title-bar Accept / Reject).
        if (await actions.showReview?.(ref, toolCallId)) return {};
        return (
          await actions.openDiff(
            c.folder(ref.folderKey),
            this.edits.get(toolCallId) ?? (await c.editDetails(ref, toolCallId)),
            toolCallId,
          ),
          {}
        );
      },
      // The form is open once it lists or connects: a later reload must not reopen it.
      listModels: async (params) => ((this.connectAsked = false), c.connection().listModels(params)),
      bringBack: async ({ ref }) => (await this.onBringBack?.(ref), {}),
      connect: async (params) => {
        this.connectAsked = false;
        const result = await c.connection().connect(params);
        // The views hear "configured" before the form hears "connected": it never shows again in between.
        if (result.ok) await c.refreshConfig();
        return result;
      },
    };
  }

  /** The session this view shows. */
  get ref(): SessionRef | undefined {
    return this.shown;
  }

  /** Handles one message from the webview. Never throws: failures become error replies. */
  async handle(raw: unknown): Promise<void> {
    const parsed = parseChatRequest(raw);
    if (!parsed.ok) {
      this.post({ kind: "response", id: parsed.id, error: { code: "invalid", message: parsed.message } });
      return;
    }
    const { id } = parsed.request;
    hop(`rpc ${parsed.request.method} in`);
    // The view is alive and talking: a reveal posted with the last switch has reached it.
    if (parsed.request.method !== "hello") this.pendingReveal = undefined;
    try {
      const result = await this.run(parsed.request);
      this.post({ kind: "response", id, result });
      hop(`rpc ${parsed.request.method} out`);
      if (parsed.request.method === "hello") {
        this.greeted = true;
        if (this.toAttach.length) this.event({ type: "attach", attachments: this.toAttach.splice(0, 50) });
      }
    } catch (error) {
      const code = error instanceof ChatError ? error.code : "failed";
      this.post({
        kind: "response",
        id,
        error: { code, message: error instanceof Error ? error.message : String(error) },
      });
    }
  }

  /** Shows a session from outside (the Sessions tree, a command): the view switches to it. */
  async show(ref: SessionRef, reveal?: RevealTarget): Promise<void> {
    // Claimed before the open resolves: a hello arriving meanwhile (the view's document
    // reloading as it is revealed) waits for this switch and then answers with it.
    this.shownFromOutside = ref;
    this.pendingReveal = reveal && { ref, target: reveal };
    const switched = this.controller.open(ref).then((opened) => {
      const snapshot = this.opened(opened);
      this.event({ type: "session-switched", snapshot: reveal ? { ...snapshot, reveal } : snapshot });
    });
    // A switch that failed must not keep a reloading view from its own saved session.
    this.switching = switched.catch(() => {
      if (this.shownFromOutside === ref) this.shownFromOutside = undefined;
    });
    await switched;
  }

  /** Attachments for the composer (Add to Chat): at once to a view that is loaded and visible, else right after its next hello. */
  attach(attachments: ResolvedAttachment[]): void {
    if (this.greeted && this.visible()) this.event({ type: "attach", attachments });
    else this.toAttach.push(...attachments);
  }

  /**
   * The shown conversation now lives in an editor tab (Open Chat in Editor): this view stops
   * following it and shows a placeholder, so one conversation is not driven from two places.
   */
  moveAway(): MovedChat | undefined {
    const ref = this.shown;
    if (!ref) return undefined;
    this.movedAway = { ref, ...(this.title ? { title: this.title.slice(0, 500) } : {}) };
    this.memory?.setMoved(this.movedAway);
    this.watching?.dispose();
    this.watching = undefined;
    this.shown = this.shownFromOutside = undefined;
    this.edits.clear();
    this.event({ type: "session-moved", moved: this.movedAway });
    return this.movedAway;
  }

  /** What this view handed to an editor tab, while its placeholder shows. */
  get moved(): MovedChat | undefined {
    return this.movedAway;
  }

  /** Opens the connect form: at once in a loaded view, else on the view's next hello. */
  askConnect(): void {
    this.connectAsked = true;
    this.event({ type: "connect" });
  }

  /**
   * Shows a session and scrolls it to event `target.seq`, highlighted (a search result was
   * chosen). The switch carries it; a view whose document reloads meanwhile gets it with
   * its hello instead.
   */
  reveal(ref: SessionRef, target: RevealTarget): Promise<void> {
    return this.show(ref, target);
  }

  event(event: ChatHostEvent): void {
    this.post({ kind: "event", event });
  }

  /** A rules file of `folderKey` changed on disk: a loaded view refreshes its rules chips. */
  rulesChanged(folderKey: string): void {
    if (this.greeted && this.shown?.folderKey === folderKey) this.event({ type: "rules-changed", folderKey });
  }

  /** Disposed with this server (its webview's watchers). */
  own(disposable: Disposable): void {
    this.owned.push(disposable);
  }

  dispose(): void {
    this.owned.splice(0).forEach((d) => d.dispose());
    this.configChange.dispose();
    this.sessionChange.dispose();
    this.watching?.dispose();
    this.watching = undefined;
  }

  private run(request: ChatRequest): Promise<unknown> {
    const handler = this.handlers[request.method] as (params: unknown) => Promise<unknown>;
    // Results are checked too: a bug here must not reach the webview as a shape it cannot read.
    return handler(request.params).then((result) => ChatMethods[request.method].result.parse(result));
  }

  private opened(snapshot: ChatSnapshot): ChatSnapshot {
    this.follow(snapshot.ref);
    this.told.model = snapshot.model;
    this.shownArchived = /archived/i.test(snapshot.readOnly ?? "");
    if (this.movedAway) this.memory?.setMoved(undefined);
    this.movedAway = undefined;
    this.setTitle(snapshot.title);
    return snapshot;
  }

  /**
   * Delete, archive, unarchive or rename of the shown session, from wherever it came.
   * A removal or a move between live and archived reopens it: what opens (read-only
   * with the archive's reason, or writable again) is shown; nothing opening means it is
   * gone, and the view closes it and says so. (Another window's archive arrives as a
   * removal then a creation: the reopen finds it archived.)
   */
  private async sessionChanged(folderKey: string, change: SessionChange): Promise<void> {
    this.movedChanged(folderKey, change);
    const shown = this.shown;
    if (!shown || !sameRef(shown, { folderKey, agentId: change.agentId, sessionId: change.sessionId })) return;
    if (change.kind === "created") return;
    if (change.kind === "updated" && change.item && change.item.archived === this.shownArchived) {
      if (change.item.title !== undefined) this.setTitle(change.item.title);
      return;
    }

    await this.switching;
    if (!this.shown || !sameRef(this.shown, shown)) return;
    let snapshot: ChatSnapshot | undefined;
    try {
      snapshot = await this.controller.open(shown);
    } catch (error) {
      // Anything but "gone" (a lock, damage) leaves the view as it is; its next action says why.
      if (!(error instanceof ChatError && error.code === "not-found")) return;
    }

    if (!this.shown || !sameRef(this.shown, shown)) return;
    if (snapshot) {
      this.event({ type: "session-switched", snapshot: this.opened(snapshot) });
      return;
    }
    this.watching?.dispose();
    this.watching = undefined;
    this.shown = undefined;
    this.memory?.set(undefined);
    this.edits.clear();
    this.setTitle(undefined);
    this.event({ type: "session-closed", ref: shown, message: SESSION_GONE });
  }

  /** A rename of the conversation the placeholder names: it names the new title (and remembers it). */
  private movedChanged(folderKey: string, change: SessionChange): void {
    const moved = this.movedAway;
    if (!moved || change.kind !== "updated" || change.item?.title === undefined) return;
    const { ref } = moved;
    if (!sameRef(ref, { folderKey, agentId: change.agentId, sessionId: change.sessionId })) return;
    const title = change.item.title.slice(0, 500);
    if (title === moved.title) return;
    this.movedAway = { ref, title };
    this.memory?.setMoved(this.movedAway);
    this.event({ type: "session-moved", moved: this.movedAway });
  }

  /** Tells the webview only what changed: the config fields that differ, and the shown session's model if it did. */
  private configChanged(config: ChatConfig): void {
    const before = this.told.config;
    if (!before) return; // No hello yet: the webview gets the whole config then.
    const changes = configChanges(before, config);
    this.told.config = config;
    if (Object.keys(changes).length > 0) this.event({ type: "config", changes });
    if (!this.shown) return;
    const model = this.controller.model(this.shown);
    if (sameJson(model, this.told.model)) return;
    this.told.model = model;
    this.event({ type: "model", ref: this.shown, ...(model ? { model } : {}) });
  }

  private setTitle(title: string | undefined): void {
    this.title = title;
    this.onTitle?.(title);
  }

  private follow(ref: SessionRef): void {
    if (this.shown && sameRef(this.shown, ref) && this.watching) return;
    // The webview switched by itself (or was told to): what it shows now is what it saves.
    if (this.shownFromOutside && !sameRef(this.shownFromOutside, ref)) this.shownFromOutside = undefined;
    this.watching?.dispose();
    this.shown = ref;
    this.memory?.set(ref);
    this.edits.clear();
    this.watching = this.controller.watch(ref, (event) => this.forward(ref, event), this.visible);
  }

  private forward(ref: SessionRef, event: AgentEvent): void {
    if (event.type === "tool-finished" && event.details?.kind === "edit")
      this.edits.set(event.toolCallId, event.details);
    if (event.type === "approval-requested" && event.preview?.kind === "edit")
      this.edits.set(event.toolCallId, event.preview);
    if (event.type === "session-event" && event.event.type === "session/title")
      this.setTitle((event.event.data as { title?: string }).title);
    this.event({ type: "agent", folderKey: ref.folderKey, event });
    hop(`post ${event.type === "session-event" ? event.event.type : event.type}`);
  }
}
