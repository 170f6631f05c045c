// Over 350 lines: not split yet: the per-folder record of issue 22 item 3 would take its folder wiring out.
import type {
  AgentEvent,
  ApprovalDecision,
  CatchUp,
  ChatConfig,
  ChatPage,
  SessionRef,
  ChatSnapshot,
  ContentBlock,
  EditDetails,
  ModelChoice,
  ChatSessionItem,
  ToolResultData,
} from "../../core/protocol";

import { sameRef, sessionKey } from "../../core/protocol";
import type { Session, SessionChange } from "../../core/runtime";
import { hop, SessionNotFoundError } from "../../core/runtime";
import { PendingDecisions } from "../approval/decisions";
import type { ChatApprovalSink } from "../approval/chat-sink";
import { LiveState } from "./live-state";
import type { ChatConnection, ChatFolder, ChatFolders, Disposable } from "./folders";

/** An error the RPC layer reports with its code. */
export class ChatError extends Error {
  constructor(
    readonly code: "invalid" | "not-found" | "read-only" | "failed",
    message: string,
  ) {
    super(message);
  }
}

/** What the chat says of a session that no longer exists: never its id or the store's message. */
export const SESSION_GONE =
  "This session was deleted. Start a new session, or open another one from the Sessions view.";

/** A listener for list changes of one folder's sessions (delete, archive, rename, from any window). */
export type SessionChangeListener = (folderKey: string, change: SessionChange) => void;

/** A listener for one session's agent events (what a view forwards to its webview). */
export type SessionListener = (event: AgentEvent) => void;

interface Watched {
  ref: SessionRef;
  listener: SessionListener;
  visible: () => boolean;
}

/**
 * The host-side chat API (issue 11 item 7): everything a chat view does, over the
 * folders' `WorkspaceRuntimeApi`s, in plain TypeScript. One controller serves every
 * view; views subscribe to the session they show and get only its events.
 */
export class ChatController implements Disposable {
  readonly approvals: ChatApprovalSink;
  private readonly live = new Map<string, LiveState>();
  /** The last SDK warm-up (`warm`; tests await it). */
  warming: Promise<void> | undefined;
  private readonly watchers = new Set<Watched>();
  private readonly models = new Map<string, ModelChoice>();
  private readonly subscriptions: Disposable[] = [];
  private readonly configListeners = new Set<(config: ChatConfig) => void>();
  private readonly changeListeners = new Set<SessionChangeListener>();
  private configRefresh: Promise<void> | undefined;
  private configStale = false;

  constructor(
    private readonly runtimes: ChatFolders,
    decisions: PendingDecisions = new PendingDecisions(),
  ) {
    this.approvals = { decisions, shows: (ref) => [...this.watchers].some((w) => w.visible() && sameRef(w.ref, ref)) };
    let attached = false;
    this.subscriptions.push(runtimes.attach((folder) => this.openFolder(folder, attached)));
    attached = true;
    const configChange = runtimes.onDidChangeConfig?.(() => void this.refreshConfig());
    if (configChange) this.subscriptions.push(configChange);
  }

  /** Called with the new config whenever provider, model, agent or trust settings changed; each view sends its webview what differs. */
  onDidChangeConfig(listener: (config: ChatConfig) => void): Disposable {
    this.configListeners.add(listener);
    return { dispose: () => this.configListeners.delete(listener) };
  }

  /**
   * Recomputes the config once for every view. A burst of changes while one is being
   * computed costs one more pass, not one per change. Resolves when the views were told.
   */
  refreshConfig(): Promise<void> {
    if (this.configRefresh) {
      this.configStale = true;
      return this.configRefresh;
    }
    const pass = async () => {
      try {
        do {
          this.configStale = false;
          // A config that cannot be computed now (a secret store error) leaves the views as they are.
          const config = await this.config().catch(() => undefined);
          if (!config) continue;
          this.dropUnknownModels(config);
          for (const listener of this.configListeners) listener(config);
        } while (this.configStale);
      } finally {
        // Cleared in the same tick as the last check, so a change after it starts a new pass.
        this.configRefresh = undefined;
      }
    };
    const running = pass();
    this.configRefresh = running;
    return running;
  }

  /** A view's own model choice goes when its profile does; a kept one takes the profile's current window. */
  private dropUnknownModels(config: ChatConfig): void {
    for (const [key, chosen] of this.models) {
      if (!config.models.some((m) => m.provider === chosen.provider)) {
        this.models.delete(key);
        continue;
      }
      const configured = config.models.find((m) => m.provider === chosen.provider && m.model === chosen.model);
      if (configured && configured.contextWindow !== chosen.contextWindow) this.models.set(key, configured);
    }
  }

  /**
   * A chat's user started typing: the selected model's SDK loads in the background, so the
   * first message does not pay for it (issue 19, first message → first token). Not at hello:
   * the view's own first paint would compete with it. A loaded SDK makes this nearly free.
   */
  warm(): void {
    this.warming = Promise.all(this.runtimes.folders().map((f) => f.runtime.warm?.().catch(() => undefined))).then(
      () => undefined,
    );
  }

  async config(): Promise<ChatConfig> {
    const folders = this.runtimes.folders();
    const agents = new Map<string, string>();
    for (const folder of folders) for (const agent of folder.runtime.agents) agents.set(agent.id, agent.name);
    const restricted = this.runtimes.restricted();
    return {
      providerConfigured: this.runtimes.providerConfigured(),
      models: [...(await this.runtimes.models())],
      agents: [...agents].map(([id, name]) => ({ id, name })),
      ...(restricted ? { restricted } : {}),
    };
  }

  /** Each view follows what happens to the session it shows (see `sessionChanged`). */
  onSessionChange(listener: SessionChangeListener): Disposable {
    this.changeListeners.add(listener);
    return { dispose: () => this.changeListeners.delete(listener) };
  }

  /**
   * A session of the folder was created, changed or removed: by this window, another
   * one or the CLI (the extension feeds the Sessions tree's changes, which include the
   * meta.json watcher's). Every view showing it reacts at once.
   */
  sessionChanged(folderKey: string, change: SessionChange): void {
    for (const listener of this.changeListeners) listener(folderKey, change);
  }

  /** Subscribes to one session's events; `visible` tells approvals whether this view can ask. */
  watch(ref: SessionRef, listener: SessionListener, visible: () => boolean): Disposable {
    const entry: Watched = { ref, listener, visible };
    this.watchers.add(entry);
    return { dispose: () => this.watchers.delete(entry) };
  }

  /** The Active page and the live state: all a view gets in full, once. */
  async open(ref: SessionRef): Promise<ChatSnapshot> {
    const { folder, session, report } = await this.session(ref);
    const page = await folder.runtime.messages(this.coreRef(ref));
    const live = this.liveOf(ref);
    const readOnly = this.readOnlyReason(session, report.readOnly);
    const model = this.models.get(sessionKey(ref, ref.folderKey)) ?? this.runtimes.defaultModel(ref.folderKey);
    return {
      ref,
      folderName: folder.name,
      ...(session.title.title ? { title: session.title.title } : {}),
      ...(readOnly ? { readOnly } : {}),
      ...(report.actions.length ? { repairs: report.actions } : {}),
      running: folder.runtime.isRunning(this.coreRef(ref)),
      page: toPage(page),
      ...(live?.draft ? { draft: live.draft } : {}),
      pendingApprovals: [...(live?.pending.values() ?? [])],
      ...(live?.usage ? { usage: live.usage } : {}),
      ...(model ? { model } : {}),
    };
  }

  /** What a restored view missed since `afterSeq`; a reset snapshot when that is no longer in memory. */
  async catchUp(ref: SessionRef, afterSeq: number): Promise<CatchUp> {
    const { folder, session, report } = await this.session(ref);
    if (afterSeq > session.lastSeq || afterSeq < session.baseSeq)
      return { kind: "reset", snapshot: await this.open(ref) };
    const live = this.liveOf(ref);
    const readOnly = this.readOnlyReason(session, report.readOnly);
    return {
      kind: "delta",
      events: [...session.events(afterSeq + 1)],
      running: folder.runtime.isRunning(this.coreRef(ref)),
      ...(live?.draft ? { draft: live.draft } : {}),
      pendingApprovals: [...(live?.pending.values() ?? [])],
      ...(live?.usage ? { usage: live.usage } : {}),
      ...(session.title.title ? { title: session.title.title } : {}),
      ...(readOnly ? { readOnly } : {}),
    };
  }

  /** One older page (one segment) before `beforeSeq`. */
  async loadEarlier(ref: SessionRef, beforeSeq: number): Promise<ChatPage> {
    const folder = this.folder(ref.folderKey);
    try {
      return toPage(await folder.runtime.messages(this.coreRef(ref), { beforeSequence: beforeSeq }));
    } catch (error) {
      throw gone(error) ?? error;
    }
  }

  async create(folderKey: string | undefined, agentId?: string): Promise<SessionRef> {
    const folder = folderKey ? this.folder(folderKey) : this.runtimes.folders()[0];
    if (!folder) throw new ChatError("not-found", "Open a folder to start a session.");
    if (agentId && !folder.runtime.agents.some((a) => a.id === agentId))
      throw new ChatError("invalid", `unknown agent "${agentId}"`);
    const session = folder.runtime.create(agentId);
    hop("session created");
    return { folderKey: folder.key, agentId: session.agentId, sessionId: session.id };
  }

  async list(): Promise<ChatSessionItem[]> {
    const out: ChatSessionItem[] = [];
    for (const folder of this.runtimes.folders()) {
      for (const item of await folder.runtime.list()) {
        out.push({
          ref: { folderKey: folder.key, agentId: item.agentId, sessionId: item.sessionId },
          ...(item.title ? { title: item.title } : {}),
          updatedAt: item.updatedAt,
          ...(item.running ? { running: true } : {}),
        });
      }
    }
    return out.sort((a, b) => b.updatedAt - a.updatedAt);
  }

  /**
   * Sends input: a new turn, or a steer of the running one. Returns once accepted; the
   * run itself streams as events, and a failure to start shows as an error notice.
   */
  async prompt(ref: SessionRef, input: string | ContentBlock[]): Promise<{ steered: boolean }> {
    const { folder, session, report } = await this.session(ref);
    hop("controller opened");
    const readOnly = this.readOnlyReason(session, report.readOnly);
    if (readOnly) throw new ChatError("read-only", readOnly);
    const coreRef = this.coreRef(ref);
    if (folder.runtime.isRunning(coreRef)) {
      folder.runtime.steer(coreRef, input);
      return { steered: true };
    }
    const model = this.models.get(sessionKey(ref, ref.folderKey));
    const run = folder.runtime.prompt(coreRef, input, model ? { model } : {});
    run.catch((error: unknown) => this.notice(ref, error instanceof Error ? error.message : String(error)));
    return { steered: false };
  }

  /** Runs the failed turn again; refused unless `turnEnd` is the session's last turn and it failed. */
  async retry(ref: SessionRef, turnEnd: number): Promise<void> {
    const { folder, session, report } = await this.session(ref);
    const readOnly = this.readOnlyReason(session, report.readOnly);
    if (readOnly) throw new ChatError("read-only", readOnly);
    const last = session.events().findLast((e) => e.type === "turn/end" || e.type === "turn/start");
    if (!last || last.seq !== turnEnd) throw new ChatError("invalid", "Only the last failed turn can be retried.");
    const model = this.models.get(sessionKey(ref, ref.folderKey));
    const run = folder.runtime.retry(this.coreRef(ref), model ? { model } : {});
    run.catch((error: unknown) => this.notice(ref, error instanceof Error ? error.message : String(error)));
  }

  /** The edit a tool call made (or proposed), from the log: a reopened card's "Open diff". */
  async editDetails(ref: SessionRef, toolCallId: string): Promise<EditDetails | undefined> {
    const { session } = await this.session(ref);
    const result = session
      .events()
      .findLast((e) => e.type === "tool/result" && (e.data as ToolResultData).toolCallId === toolCallId);
    const details = (result?.data as ToolResultData | undefined)?.details;
    return details?.kind === "edit" ? details : undefined;
  }

  cancel(ref: SessionRef): void {
    this.folder(ref.folderKey).runtime.cancel(this.coreRef(ref));
  }

  /**
   * The user's answer to an approval shown in a view: it resolves the one decision the
   * diff review and the notification show too. False when nothing waits for it.
   */
  approve(ref: SessionRef, toolCallId: string, decision: ApprovalDecision): boolean {
    this.folder(ref.folderKey);
    return this.approvals.decisions.answer({ ...ref, toolCallId }, decision);
  }

  /** Refuses (read-only error) when the session cannot be written: nothing it asks for may change files. */
  async writable(ref: SessionRef): Promise<void> {
    const { session, report } = await this.session(ref);
    const readOnly = this.readOnlyReason(session, report.readOnly);
    if (readOnly) throw new ChatError("read-only", readOnly);
  }

  /** Logs an undone edit, so a reopened chat shows the card as undone. */
  async logUndo(ref: SessionRef, toolCallId: string, path: string): Promise<void> {
    const { session } = await this.session(ref);
    session.append("tool/undo", { toolCallId, path });
  }

  async rename(ref: SessionRef, title: string): Promise<void> {
    await this.folder(ref.folderKey).runtime.rename(this.coreRef(ref), title);
  }

  /** Forks the whole session, or up to (and including) `atSeq`; returns the fork's ref. */
  async fork(ref: SessionRef, atSeq?: number): Promise<SessionRef> {
    const item = await this.folder(ref.folderKey).runtime.fork(this.coreRef(ref), atSeq ? { atSeq } : {});
    return { folderKey: ref.folderKey, agentId: item.agentId, sessionId: item.sessionId };
  }

  selectModel(ref: SessionRef, model: ModelChoice): void {
    this.models.set(sessionKey(ref, ref.folderKey), model);
  }

  model(ref: SessionRef): ModelChoice | undefined {
    return this.models.get(sessionKey(ref, ref.folderKey)) ?? this.runtimes.defaultModel(ref.folderKey);
  }

  /** The connect form's host side; an error where the host offers none. */
  connection(): ChatConnection {
    if (!this.runtimes.connection) throw new ChatError("failed", "connecting a model is not available here");
    return this.runtimes.connection;
  }

  folder(folderKey: string): ChatFolder {
    const folder = this.runtimes.folders().find((f) => f.key === folderKey);
    if (!folder) throw new ChatError("not-found", `no workspace folder "${folderKey}"`);
    return folder;
  }

  /** `folderKey`'s folder, or the first one (where a new session starts) when none is named. */
  folderOrFirst(folderKey: string | undefined): ChatFolder {
    if (folderKey) return this.folder(folderKey);
    const first = this.runtimes.folders()[0];
    if (!first) throw new ChatError("not-found", "Open a folder to mention its files.");
    return first;
  }

  private disposed = false;

  dispose(): void {
    this.disposed = true;
    this.subscriptions.forEach((d) => d.dispose());
    this.configListeners.clear();
    this.changeListeners.clear();
    this.watchers.clear();
  }

  private async session(
    ref: SessionRef,
  ): Promise<{ folder: ChatFolder; session: Session; report: { actions: string[]; readOnly?: string } }> {
    const folder = this.folder(ref.folderKey);
    try {
      const { session, report } = await folder.runtime.open(this.coreRef(ref));
      return { folder, session, report };
    } catch (error) {
      throw (
        gone(error) ??
        new ChatError(
          "failed",
          `This session cannot be opened: ${error instanceof Error ? error.message : String(error)}`,
        )
      );
    }
  }

  private readOnlyReason(session: Session, reported: string | undefined): string | undefined {
    return this.runtimes.restricted() ?? session.readOnly ?? reported;
  }

  private coreRef(ref: SessionRef): { agentId: string; sessionId: string } {
    return { agentId: ref.agentId, sessionId: ref.sessionId };
  }

  private liveOf(ref: SessionRef) {
    return this.live.get(ref.folderKey)?.get(ref.agentId, ref.sessionId);
  }

  private notice(ref: SessionRef, message: string): void {
    this.dispatch(ref.folderKey, {
      type: "notice",
      sessionId: ref.sessionId,
      agentId: ref.agentId,
      level: "error",
      message,
    });
  }

  private dispatch(folderKey: string, event: AgentEvent): void {
    this.live.get(folderKey)?.apply(event);
    for (const w of this.watchers) {
      if (sameRef(w.ref, { folderKey, agentId: event.agentId, sessionId: event.sessionId })) w.listener(event);
    }
  }

  /**
   * The chat's part of a folder's record: its live state, fed by the folder's events, kept until the folder goes.
   * A folder that opens or goes later may bring or take agents: the views' config is refreshed.
   */
  private openFolder(folder: ChatFolder, later: boolean): Disposable {
    this.live.set(folder.key, new LiveState());
    const off = folder.runtime.onEvent((event) => this.dispatch(folder.key, event));
    if (later) void this.refreshConfig();
    return {
      dispose: () => {
        off();
        this.live.delete(folder.key);
        if (!this.disposed) void this.refreshConfig();
      },
    };
  }
}

/** A store error saying the session does not exist, as the chat says it. */
function gone(error: unknown): ChatError | undefined {
  return error instanceof SessionNotFoundError ? new ChatError("not-found", SESSION_GONE) : undefined;
}

function toPage(page: {
  events: ChatPage["events"];
  firstSeq: number;
  lastSeq: number;
  summary?: string;
  hasOlder: boolean;
}): ChatPage {
  return {
    events: page.events,
    firstSeq: page.firstSeq,
    lastSeq: page.lastSeq,
    ...(page.summary !== undefined ? { summary: page.summary } : {}),
    hasOlder: page.hasOlder,
  };
}
