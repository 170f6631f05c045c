// Over 350 lines: the folder's one runtime (WorkspaceRuntimeApi): its open sessions' entries (track, run, compact) and the API over them; the parts that stand alone live beside it (agents, agent-tools, provider-profiles, session-search, log-events, restore).
import { randomUUID } from "node:crypto";
import { platform } from "node:os";
import { Agent, SessionApprovals, type CallSettings, type TurnOutcome } from "../agent";
import { ModelClients } from "../llm/model-clients";
import type { LlmClient } from "../llm/types";
import { sessionKey, type AgentEvent, type ModelChoice, type ContentBlock, type SessionEvent } from "../protocol";
import {
  renderTranscript,
  wholeHistory,
  type DamagedFolder,
  type HistoryPage,
  type ListFilter,
  type RepairReport,
  type Session,
  type SessionChange,
  type SessionListItem,
  type SessionPersistence,
  type LocalSessionRef,
  type TranscriptFormat,
} from "../session";
import { sessionPaths } from "../storage/layout";
import { damagedDirOf, storedSessionAt } from "./stored-at";
import { Sessions } from "../storage/sessions";
import type { SearchHit, SearchOptions } from "../protocol/search";
import { JsonlSessionPersistence } from "../storage/jsonl-persistence";
import { CheckpointRecorder } from "../checkpoints/recorder";
import { realRoot } from "../checkpoints/real-root";
import * as restore from "./restore";
import { Emitter, type Unsubscribe } from "../util/emitter";
import { hop } from "../util/hop-trace";
import { ProjectRules, touchedPaths } from "../rules";
import type { SessionRules } from "../protocol/rules";
import { BUILTIN_AGENTS } from "./agents";
import { AgentTools } from "./agent-tools";
import { SessionSearch } from "./session-search";
import { forwardLogEvent } from "./log-events";
import { ProviderProfiles } from "./provider-profiles";
import { RestrictedModeError, RuntimeError } from "./errors";
import type {
  AgentProfile,
  CompactNowResult,
  LiveOptions,
  RunResult,
  StoredSessionAt,
  WorkspaceRuntimeApi,
  WorkspaceRuntimeOptions,
} from "./types";

interface Entry {
  session: Session;
  profile: AgentProfile;
  agent?: Agent;
  /** The model, agent profile and compaction settings the agent was built with; others build a new agent between runs. */
  buildKey?: string;
  approvals: SessionApprovals;
  run?: Promise<RunResult[]>;
  /** A Compact Now in progress: a prompt waits for it (both would append to the log). */
  compacting?: Promise<unknown>;
  /** The session's agent is not configured and the user was told it runs with the default agent's settings. */
  toldOrphan?: boolean;
  detach: Unsubscribe[];
  checkpoints?: CheckpointRecorder;
}

/**
 * One workspace folder's agent host: the session store, the LLM runtime, the tools and
 * an agent per session, built from plain options and closed together. Several sessions
 * may run at once; every session's events come out of one `onEvent` stream.
 */
export class WorkspaceRuntime implements WorkspaceRuntimeApi {
  readonly root: string;
  readonly sessions: Sessions<SessionPersistence>;
  private readonly llm: LlmClient;
  private readonly modelClients: ModelClients | undefined;
  private readonly entries = new Map<string, Entry>();
  private readonly emitter = new Emitter<{ event: [AgentEvent] }>();
  private readonly providerProfiles: ProviderProfiles;
  private readonly agentTools: AgentTools;
  /** What `updateOptions` replaces; read when a turn builds its agent, never during one. */
  private live: { agents: readonly AgentProfile[]; compaction: WorkspaceRuntimeOptions["compaction"] };
  private closing: Promise<void> | undefined;
  private readonly sessionSearch: SessionSearch;
  private readonly projectRules: ProjectRules;

  constructor(private readonly options: WorkspaceRuntimeOptions) {
    this.root = options.root;
    this.projectRules = new ProjectRules({ root: options.root, ...options.rules });
    this.live = { agents: checkedAgents(options.agents ?? BUILTIN_AGENTS), compaction: options.compaction };
    this.sessions = new Sessions({
      root: options.root,
      ...options.storage,
      ...(options.persistence ? { persistence: options.persistence } : {}),
    });
    this.modelClients = options.llm ? undefined : new ModelClients();
    this.llm = options.llm ?? this.modelClients!;
    this.sessionSearch = new SessionSearch(this.sessions, this.root, options.searchIndexDir);
    this.agentTools = new AgentTools(options, (event) => this.emitter.emit("event", event));
    this.providerProfiles = new ProviderProfiles(
      this.modelClients,
      () => options.providers(),
      (provider, about) => options.providerSetting?.(provider, about),
    );
  }

  get agents(): readonly AgentProfile[] {
    return this.live.agents;
  }

  updateOptions(options: LiveOptions): void {
    this.live = {
      agents: "agents" in options ? checkedAgents(options.agents ?? BUILTIN_AGENTS) : this.live.agents,
      compaction: "compaction" in options ? options.compaction : this.live.compaction,
    };
  }

  onEvent(listener: (event: AgentEvent) => void): Unsubscribe {
    return this.emitter.on("event", listener);
  }

  onChange(listener: (change: SessionChange) => void): Unsubscribe {
    return this.sessions.onChange(listener);
  }

  list(filter: ListFilter = {}): Promise<SessionListItem[]> {
    return this.sessions.list(filter);
  }

  sessionDir(ref: LocalSessionRef, options: { archived?: boolean } = {}): string {
    const r = this.ref(ref);
    return sessionPaths(this.root, r.agentId, r.sessionId, options.archived ? "archived" : "sessions").dir;
  }

  damagedDir(folder: DamagedFolder): string {
    return damagedDirOf(this.root, folder);
  }

  storedItemAt(metaPath: string): Promise<StoredSessionAt | undefined> {
    return storedSessionAt(this.root, metaPath);
  }

  history(ref: LocalSessionRef, options: { signal?: AbortSignal } = {}): Promise<SessionEvent[]> {
    return wholeHistory((o) => this.messages(ref, o), options.signal);
  }

  async exportTranscript(
    ref: LocalSessionRef,
    format: TranscriptFormat,
    options: { title?: string; signal?: AbortSignal } = {},
  ): Promise<string> {
    return renderTranscript(await this.history(ref, options), format, options.title);
  }

  deleteDamaged(folder: DamagedFolder): Promise<void> {
    return this.sessions.deleteDamaged(folder);
  }

  create(agentId = this.agents[0]!.id, sessionId = `session-${randomUUID()}`): Session {
    const profile = this.profile(agentId);
    return this.track(this.sessions.create({ agentId: profile.id, id: sessionId })).session;
  }

  async open(ref: LocalSessionRef): Promise<{ session: Session; report: RepairReport }> {
    const opened = await this.sessions.open(this.ref(ref));
    this.track(opened.session);
    // A restore a crash cut short is told on the next open: the log says which files it reached.
    await restore.settleRestore(this.restoreHost(), opened.session);
    return opened;
  }

  async rules(ref: LocalSessionRef): Promise<SessionRules> {
    const session = this.entries.get(this.key(ref))?.session;
    const { files, budgetTokens } = await this.projectRules.load(
      session ? touchedPaths(session.deriveMessages(), this.root) : [],
    );
    return { files, budgetTokens };
  }

  async restorePoint(ref: LocalSessionRef, messageSeq: number): Promise<number> {
    return restore.restorePoint(this.restoreHost(), (await this.entry(ref)).session, messageSeq);
  }

  async previewRestore(ref: LocalSessionRef, toSeq: number): Promise<restore.RestorePreview> {
    return restore.previewRestore(this.restoreHost(), (await this.entry(ref)).session, toSeq);
  }

  async previewUndoRestore(ref: LocalSessionRef): Promise<{ plan: restore.RestorePreview; undoOf: number }> {
    return restore.previewUndo(this.restoreHost(), (await this.entry(ref)).session);
  }

  /** Writes a previewed restore (or undo); refused in Restricted Mode, on a read-only session and while it runs. */
  async applyRestore(
    ref: LocalSessionRef,
    plan: restore.RestorePreview,
    options: restore.RestoreApplyOptions,
  ): Promise<restore.RestoreOutcome> {
    const entry = await this.writableEntry(ref);
    if (entry.run) throw new RuntimeError(`session ${entry.session.id} is running; restore it when the run ends`);
    return restore.applyPreviewed(this.restoreHost(), entry.session, plan, options);
  }

  private restoreHost(): restore.RestoreHost {
    const persistence = this.sessions.persistence;
    const storageRoot = persistence instanceof JsonlSessionPersistence ? persistence.ctx.root : this.root;
    return {
      root: this.root,
      sessions: this.sessions,
      sessionDir: (s) => sessionPaths(storageRoot, s.agentId, s.id).dir,
    };
  }

  messages(ref: LocalSessionRef, options: { beforeSequence?: number } = {}): Promise<HistoryPage> {
    return this.sessions.messages(this.ref(ref), options);
  }

  async prompt(
    ref: LocalSessionRef,
    input: string | ContentBlock[],
    options: { model?: ModelChoice; whenRunning?: "steer" | "queue" } = {},
  ): Promise<RunResult[]> {
    hop("runtime prompt");
    const entry = await this.writableEntry(ref);
    hop("runtime entry");
    if (entry.run) {
      if (options.whenRunning === "queue") entry.agent!.followUp(input);
      else entry.agent!.steer(input);
      return entry.run;
    }
    const agent = await this.agentFor(entry, options.model);
    hop("runtime agent");
    agent.followUp(input);
    return this.start(entry, agent);
  }

  /** The entry a run may write to: refused when closing, in Restricted Mode or read-only; waits out a Compact Now. */
  private async writableEntry(ref: LocalSessionRef): Promise<Entry> {
    if (this.closing) throw new RuntimeError("the workspace runtime is closed");
    const why = this.options.restricted?.();
    if (why !== undefined) throw new RestrictedModeError(why);
    const entry = await this.entry(ref);
    if (entry.session.readOnly)
      throw new RuntimeError(`session ${entry.session.id} is read-only: ${entry.session.readOnly}`);
    while (entry.compacting) await entry.compacting.catch(() => undefined);
    return entry;
  }

  async retry(ref: LocalSessionRef, options: { model?: ModelChoice } = {}): Promise<RunResult[]> {
    const entry = await this.writableEntry(ref);
    if (entry.run) throw new RuntimeError("the session is running: nothing to retry");
    const failed = failedTurnEnd(entry.session.events());
    if (failed === undefined) throw new RuntimeError("the last turn did not fail: nothing to retry");
    const agent = await this.agentFor(entry, options.model);
    agent.retryTurn(failed);
    return this.start(entry, agent);
  }

  private start(entry: Entry, agent: Agent): Promise<RunResult[]> {
    const run = agent.run().then((outcomes) => outcomes.map(toResult));
    entry.run = run;
    const clear = () => {
      if (entry.run === run) delete entry.run;
    };
    run.then(clear, clear);
    return run;
  }

  steer(ref: LocalSessionRef, input: string | ContentBlock[]): void {
    const entry = this.entries.get(this.key(ref));
    if (!entry?.run || !entry.agent) throw new RuntimeError(`session ${ref.sessionId} is not running`);
    entry.agent.steer(input);
  }

  cancel(ref: LocalSessionRef): void {
    this.entries.get(this.key(ref))?.agent?.cancel();
  }

  cancelAll(): void {
    for (const entry of this.entries.values()) entry.agent?.cancel();
  }

  isRunning(ref: LocalSessionRef): boolean {
    return this.entries.get(this.key(ref))?.run !== undefined;
  }

  async compactNow(ref: LocalSessionRef, options: { signal?: AbortSignal } = {}): Promise<CompactNowResult> {
    const why = this.options.restricted?.();
    if (why !== undefined) throw new RestrictedModeError(why);
    const entry = await this.entry(ref);
    if (entry.session.readOnly)
      throw new RuntimeError(`session ${entry.session.id} is read-only: ${entry.session.readOnly}`);
    if (entry.run) throw new RuntimeError(`session ${entry.session.id} is running; compact it when the run ends`);
    if (entry.compacting) throw new RuntimeError(`session ${entry.session.id} is already being compacted`);
    const compacting = this.compactEntry(entry, options.signal);
    entry.compacting = compacting;
    try {
      return await compacting;
    } finally {
      if (entry.compacting === compacting) delete entry.compacting;
    }
  }

  private async compactEntry(entry: Entry, signal: AbortSignal | undefined): Promise<CompactNowResult> {
    const agent = await this.agentFor(entry, undefined, "compact");
    const outcome = await agent.compactNow(signal);
    await this.sessions.flush(entry.session);
    // The compaction/end event's count (Surface messages), the one the chat shows too.
    const result: CompactNowResult = { closed: outcome.closed, folded: outcome.folded };
    if (outcome.throughSeq) result.throughSeq = outcome.throughSeq;
    if (outcome.summaryChars !== undefined) result.summaryChars = outcome.summaryChars;
    if (!outcome.throughSeq) result.note = "nothing could be closed: the history is shorter than what compaction keeps";
    return result;
  }

  rename(ref: LocalSessionRef, title: string): Promise<void> {
    return this.sessions.rename(this.ref(ref), title);
  }

  fork(ref: LocalSessionRef, options: { atSeq?: number } = {}): Promise<SessionListItem> {
    return this.sessions.fork(this.ref(ref), options);
  }

  archive(ref: LocalSessionRef): Promise<void> {
    return this.whileIdle(ref, () => this.sessions.archive(this.ref(ref)));
  }

  unarchive(ref: LocalSessionRef): Promise<void> {
    return this.whileIdle(ref, () => this.sessions.unarchive(this.ref(ref)));
  }

  delete(ref: LocalSessionRef): Promise<void> {
    return this.whileIdle(ref, () => this.sessions.delete(this.ref(ref)));
  }

  search(options: SearchOptions): AsyncIterable<SearchHit> {
    return this.sessionSearch.search(options);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.cancelAll();
      await Promise.all(
        [...this.entries.values()].flatMap((e) => [
          e.run?.catch(() => undefined),
          e.compacting?.catch(() => undefined),
        ]),
      );
      for (const entry of this.entries.values()) for (const off of entry.detach) off();
      await Promise.all([...this.entries.values()].map((e) => e.checkpoints?.dispose()));
      this.entries.clear();
      await this.sessionSearch.idle();
      await this.sessions.close();
    })();
    return this.closing;
  }

  private profile(agentId: string): AgentProfile {
    const profile = this.agents.find((a) => a.id === agentId);
    if (!profile)
      throw new RuntimeError(`unknown agent '${agentId}' (agents: ${this.agents.map((a) => a.id).join(", ")})`);
    return profile;
  }

  private ref(ref: LocalSessionRef): Required<LocalSessionRef> {
    return { agentId: ref.agentId ?? this.agents[0]!.id, sessionId: ref.sessionId };
  }

  private key(ref: LocalSessionRef): string {
    const r = this.ref(ref);
    return sessionKey(r);
  }

  private async entry(ref: LocalSessionRef): Promise<Entry> {
    const found = this.entries.get(this.key(ref));
    if (found) return found;
    const { session } = await this.open(ref);
    return this.track(session);
  }

  /** Forwards the session's log events (and the compaction ones as typed events) once per session. */
  private track(session: Session): Entry {
    const key = sessionKey({ agentId: session.agentId, sessionId: session.id });
    let entry = this.entries.get(key);
    if (entry) return entry;
    const profile = this.agents.find((a) => a.id === session.agentId) ?? this.agents[0]!;
    const forward = (event: SessionEvent) => forwardLogEvent((e) => this.emitter.emit("event", e), session, event);
    entry = {
      session,
      profile,
      approvals: new SessionApprovals(),
      detach: [session.on("event", forward), session.on("external", forward)],
    };
    this.entries.set(key, entry);
    return entry;
  }

  /**
   * The session's agent, built (with the current providers and tools) when missing or
   * when the model, the agent's profile or the compaction settings changed. Called only
   * between turns: a running turn keeps the agent, and so the settings, it started with.
   * (Approval settings are the exception: the loop reads them at every tool call, so
   * turning "auto" back to "ask" stops the very next edit or command.)
   * Compaction needs only the model: a session whose agent is not configured (removed
   * from the settings, or stored under the store's default agent) still compacts.
   */
  private async agentFor(
    entry: Entry,
    requested: ModelChoice | undefined,
    purpose: "run" | "compact" = "run",
  ): Promise<Agent> {
    entry.profile = this.profileOf(entry, purpose);
    const selection = requested ?? this.options.model();
    if (!selection) throw new RuntimeError("no model is configured: choose a provider and a model first");
    await this.providerProfiles.sync();
    hop("runtime providers");
    const { compaction } = this.live;
    const buildKey = JSON.stringify([selection, entry.profile, compaction ?? null]);
    const tools = this.agentTools.registryFor(
      entry.profile,
      purpose === "run" ? await this.agentTools.mcp(entry.session) : [],
    );
    if (entry.agent && entry.buildKey === buildKey) {
      entry.agent.setTools(tools);
      return entry.agent;
    }
    const model: CallSettings = { provider: selection.provider, model: selection.model };
    const { options } = this;
    const agent = new Agent({
      session: entry.session,
      storage: this.sessions,
      llm: this.llm,
      tools,
      model,
      workspace: { root: this.root, platform: platform(), notes: (await options.workspaceNotes?.()) ?? [] },
      approval: () => options.approval(),
      ...(options.approve
        ? {
            approve: (request, signal) =>
              options.approve!({ ...request, sessionId: entry.session.id, agentId: entry.session.agentId }, signal),
          }
        : {}),
      ...(options.restricted ? { restricted: options.restricted } : {}),
      ...(entry.profile.forbiddenKinds ? { forbiddenKinds: entry.profile.forbiddenKinds } : {}),
      agentName: entry.profile.name,
      ...(entry.profile.instructions ? { instructions: entry.profile.instructions } : {}),
      rules: async () => (await this.projectRules.load(touchedPaths(entry.session.deriveMessages(), this.root))).text,
      sessionApprovals: entry.approvals,
      ...(options.maxSteps ? { maxSteps: options.maxSteps } : {}),
      ...(selection.contextWindow ? { contextWindow: selection.contextWindow } : {}),
      ...(compaction ? { compaction } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
      ...(options.titles ? { titles: options.titles } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(this.recorderFor(entry) ? { checkpoints: this.recorderFor(entry)! } : {}),
      endpoint: (provider) => this.providerProfiles.endpoint(provider),
    });
    agent.onEvent((event) => this.emitter.emit("event", event));
    entry.agent = agent;
    entry.buildKey = buildKey;
    return agent;
  }

  /** The session's checkpoint recorder; only the on-disk store keeps checkpoints (beside the log). */
  private recorderFor(entry: Entry): CheckpointRecorder | undefined {
    if (!(this.sessions.persistence instanceof JsonlSessionPersistence)) return undefined;
    const { session } = entry;
    return (entry.checkpoints ??= new CheckpointRecorder({
      root: realRoot(this.root),
      sessionDir: this.restoreHost().sessionDir(session),
      prepare: () => this.sessions.flush(session),
      ...(this.options.checkpointExclude ? { exclude: this.options.checkpointExclude } : {}),
    }));
  }

  /**
   * The agent profile a session runs with: its own when configured. A session whose agent
   * is not (removed from the settings, or written under the store's default agent, or by
   * another tool) continues with the default agent's settings; its id and storage stay
   * as they are. The chat is told once per session, not at every turn.
   */
  private profileOf(entry: Entry, purpose: "run" | "compact"): AgentProfile {
    const { session } = entry;
    const own = this.agents.find((a) => a.id === session.agentId);
    if (own) {
      delete entry.toldOrphan;
      return own;
    }
    const fallback = this.agents[0]!;
    if (purpose === "run" && !entry.toldOrphan) {
      entry.toldOrphan = true;
      this.emitter.emit("event", {
        type: "notice",
        sessionId: session.id,
        agentId: session.agentId,
        level: "info",
        message: `This session's agent "${session.agentId}" is not configured; it continues with the ${fallback.name} agent's settings.`,
      });
    }
    return fallback;
  }

  /** Loads the selected model's SDK ahead of the first message (the chat calls it once it is ready and idle). */
  async warm(): Promise<void> {
    const selection = this.options.model();
    if (!this.modelClients || !selection) return;
    await this.providerProfiles.sync();
    await this.modelClients.warm(selection.provider);
  }

  private async whileIdle(ref: LocalSessionRef, op: () => Promise<void>): Promise<void> {
    const key = this.key(ref);
    const entry = this.entries.get(key);
    if (entry?.run) throw new RuntimeError(`session ${ref.sessionId} is running; stop it first`);
    await op();
    if (entry) {
      for (const off of entry.detach) off();
      await entry.checkpoints?.dispose();
      this.entries.delete(key);
    }
  }
}

function checkedAgents(agents: readonly AgentProfile[]): readonly AgentProfile[] {
  if (agents.length === 0) throw new Error("a workspace runtime needs at least one agent");
  return agents;
}

/** The seq of the last `turn/end` when that turn failed and nothing ran after it. */
function failedTurnEnd(events: readonly SessionEvent[]): number | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (e.type === "turn/start") return undefined;
    if (e.type === "turn/end") return (e.data as { reason?: string }).reason === "error" ? e.seq : undefined;
  }
  return undefined;
}

function toResult(outcome: TurnOutcome): RunResult {
  return { reason: outcome.reason, steps: outcome.steps, ...(outcome.error ? { error: outcome.error.message } : {}) };
}
