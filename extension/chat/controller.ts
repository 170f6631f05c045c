import type {
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
import type { Session, SessionChange } from "../../core/runtime";
import { hop } from "../../core/runtime";
import { PendingDecisions } from "../approval/decisions";
import type { ChatApprovalSink } from "../approval/chat-sink";
import { chatConfig, ConfigFeed } from "./config-feed";
import { ChatError, gone } from "./errors";
import type { ChatConnection, ChatFolder, ChatFolders, Disposable } from "./folders";
import { ModelChoices } from "./model-choices";
import { SessionFeed, type SessionChangeListener, type SessionListener } from "./session-feed";

/**
 * The host-side chat API (issue 11 item 7): everything a chat view does, over the
 * folders' `WorkspaceRuntimeApi`s, in plain TypeScript. One controller serves every
 * view; views subscribe to the session they show and get only its events.
 */
export class ChatController implements Disposable {
  readonly approvals: ChatApprovalSink;
  /** The last SDK warm-up (`warm`; tests await it). */
  warming: Promise<void> | undefined;
  private readonly feed = new SessionFeed();
  private readonly models: ModelChoices;
  private readonly configFeed: ConfigFeed;
  private readonly subscriptions: Disposable[] = [];
  private disposed = false;

  constructor(
    private readonly runtimes: ChatFolders,
    decisions: PendingDecisions = new PendingDecisions(),
  ) {
    this.approvals = { decisions, shows: (ref) => this.feed.shows(ref) };
    this.models = new ModelChoices((folderKey) => runtimes.defaultModel(folderKey));
    this.configFeed = new ConfigFeed(
      () => this.config(),
      (config) => this.models.follow(config),
    );
    let attached = false;
    this.subscriptions.push(runtimes.attach((folder) => this.openFolder(folder, attached)));
    attached = true;
    const configChange = runtimes.onDidChangeConfig?.(() => void this.refreshConfig());
    if (configChange) this.subscriptions.push(configChange);
  }

  /** Called with the new config whenever provider, model, agent or trust settings changed; each view sends its webview what differs. */
  onDidChangeConfig(listener: (config: ChatConfig) => void): Disposable {
    return this.configFeed.onDidChange(listener);
  }

  /** Recomputes the config once for every view (a burst costs one more pass); resolves when the views were told. */
  refreshConfig(): Promise<void> {
    return this.configFeed.refresh();
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

  config(): Promise<ChatConfig> {
    return chatConfig(this.runtimes);
  }

  /** Each view follows what happens to the session it shows (see `sessionChanged`). */
  onSessionChange(listener: SessionChangeListener): Disposable {
    return this.feed.onSessionChange(listener);
  }

  /**
   * A session of the folder was created, changed or removed: by this window, another
   * one or the CLI (the extension feeds the Sessions tree's changes, which include the
   * meta.json watcher's). Every view showing it reacts at once.
   */
  sessionChanged(folderKey: string, change: SessionChange): void {
    this.feed.sessionChanged(folderKey, change);
  }

  /** Subscribes to one session's events; `visible` tells approvals whether this view can ask. */
  watch(ref: SessionRef, listener: SessionListener, visible: () => boolean): Disposable {
    return this.feed.watch(ref, listener, visible);
  }

  /** The Active page and the live state: all a view gets in full, once. */
  async open(ref: SessionRef): Promise<ChatSnapshot> {
    const { folder, session, report } = await this.session(ref);
    const page = await folder.runtime.messages(this.coreRef(ref));
    const live = this.feed.liveOf(ref);
    const readOnly = this.readOnlyReason(session, report.readOnly);
    const model = this.models.shown(ref);
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
    const live = this.feed.liveOf(ref);
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
    const model = this.models.chosen(ref);
    const run = folder.runtime.prompt(coreRef, input, model ? { model } : {});
    run.catch((error: unknown) => this.feed.notice(ref, error instanceof Error ? error.message : String(error)));
    return { steered: false };
  }

  /** Runs the failed turn again; refused unless `turnEnd` is the session's last turn and it failed. */
  async retry(ref: SessionRef, turnEnd: number): Promise<void> {
    const { folder, session, report } = await this.session(ref);
    const readOnly = this.readOnlyReason(session, report.readOnly);
    if (readOnly) throw new ChatError("read-only", readOnly);
    const last = session.events().findLast((e) => e.type === "turn/end" || e.type === "turn/start");
    if (!last || last.seq !== turnEnd) throw new ChatError("invalid", "Only the last failed turn can be retried.");
    const model = this.models.chosen(ref);
    const run = folder.runtime.retry(this.coreRef(ref), model ? { model } : {});
    run.catch((error: unknown) => this.feed.notice(ref, error instanceof Error ? error.message : String(error)));
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
    this.models.select(ref, model);
  }

  model(ref: SessionRef): ModelChoice | undefined {
    return this.models.shown(ref);
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

  dispose(): void {
    this.disposed = true;
    this.subscriptions.forEach((d) => d.dispose());
    this.configFeed.clear();
    this.feed.clear();
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

  /**
   * The chat's part of a folder's record: its live state, fed by the folder's events, kept until the folder goes.
   * A folder that opens or goes later may bring or take agents: the views' config is refreshed.
   */
  private openFolder(folder: ChatFolder, later: boolean): Disposable {
    const followed = this.feed.follow(folder);
    if (later) void this.refreshConfig();
    return {
      dispose: () => {
        followed.dispose();
        if (!this.disposed) void this.refreshConfig();
      },
    };
  }
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
