import type { EventData, Message, SessionEvent, SurfaceOp } from "../protocol";
import { EVENT_DATA_SCHEMAS, SessionEvent as SessionEventSchema } from "../protocol";
import { Emitter, type Unsubscribe } from "../util/emitter";
import { deepFreeze } from "../util/freeze";
import { deriveEventMessage, summaryMessage } from "./derive";
import { ReadOnlySessionError, SessionEventError } from "./errors";
import { SurfaceManager, type SurfacePlan } from "./surface";
import { EMPTY_TITLE, foldTitle, type TitleState } from "./title";

/** The cumulative summary of everything closed into segments (seq 1..throughSeq). */
export interface PrefixSummary {
  throughSeq: number;
  text: string;
  /** Counts over the closed prefix, so stats stay right without reading old segments. */
  messageCount?: number;
  /** Title in force at throughSeq, so a title closed into a segment survives a cold open. */
  title?: TitleState;
}

export interface AppendOptions {
  surface?: SurfaceOp;
  sources?: readonly number[];
  /** Event time in ms since the epoch; defaults to now. */
  time?: number;
}

export interface SessionInit {
  id: string;
  agentId?: string;
  createdAt?: number;
  /** Cumulative summary of the closed prefix (cold open of a compacted session). */
  summary?: PrefixSummary;
  /** Set when the session may only be read; the reason is shown to the user. */
  readOnly?: string;
}

export interface SessionStats {
  /** user/message + assistant/message events over the whole history. */
  messageCount: number;
  lastSeq: number;
  createdAt: number;
  updatedAt: number;
}

export type SessionEvents = {
  event: [event: SessionEvent, session: Session];
  /** Events arrived from another writer (a read-only follower); nothing to persist. */
  external: [event: SessionEvent, session: Session];
  "prefix-closed": [summary: PrefixSummary, session: Session];
  "read-only": [reason: string, session: Session];
  /** A turn started or ended (the list's running state). */
  running: [running: boolean, session: Session];
};

const isMessageType = (type: string) => type === "user/message" || type === "assistant/message";

/**
 * One session: the in-memory, append-only event log and its projections (DESIGN §3).
 * After a cold open of a compacted session it holds only the events after the last
 * segment, plus the cumulative summary.
 */
export class Session {
  readonly id: string;
  readonly agentId: string;
  readonly createdAt: number;
  private readonly log: SessionEvent[] = [];
  private readonly surfaceManager: SurfaceManager;
  private currentSummary: PrefixSummary | undefined;
  private titleState: TitleState = EMPTY_TITLE;
  private messageCount: number;
  private updated: number;
  private readOnlyReason: string | undefined;
  private busy = false;
  private readonly emitter = new Emitter<SessionEvents>();

  private messageCache: Message[] = [];
  private cachedGeneration = -1;
  private cachedNodes = 0;
  /** How many Surface events were projected into messages (tests count this). */
  projections = 0;

  constructor(init: SessionInit) {
    this.id = init.id;
    this.agentId = init.agentId ?? "default";
    this.createdAt = init.createdAt ?? Date.now();
    this.updated = this.createdAt;
    this.currentSummary = init.summary;
    this.messageCount = init.summary?.messageCount ?? 0;
    if (init.summary?.title) this.titleState = init.summary.title;
    this.surfaceManager = new SurfaceManager(init.summary?.throughSeq ?? 0);
    this.readOnlyReason = init.readOnly;
  }

  /**
   * Builds a session from stored events (cold open) through the same validation as
   * hot appends. Seqs must continue contiguously from the summary's `throughSeq`.
   */
  static seed(init: SessionInit, events: Iterable<unknown>): Session {
    const session = new Session(init);
    for (const raw of events) session.commit(session.validate(raw as SessionEvent), false);
    return session;
  }

  get baseSeq(): number {
    return this.surfaceManager.baseSeq;
  }
  get lastSeq(): number {
    return this.log.length > 0 ? this.log[this.log.length - 1]!.seq : this.baseSeq;
  }
  get summary(): PrefixSummary | undefined {
    return this.currentSummary;
  }
  get surface(): { readonly nodes: readonly number[]; readonly replaceGeneration: number } {
    return this.surfaceManager;
  }
  get title(): TitleState {
    return this.titleState;
  }
  get stats(): SessionStats {
    return {
      messageCount: this.messageCount,
      lastSeq: this.lastSeq,
      createdAt: this.createdAt,
      updatedAt: this.updated,
    };
  }
  get readOnly(): string | undefined {
    return this.readOnlyReason;
  }
  /** An agent turn is running on this session (set by the loop, shown by lists). */
  get running(): boolean {
    return this.busy;
  }
  setRunning(running: boolean): void {
    if (running === this.busy) return;
    this.busy = running;
    this.emitter.emit("running", running, this);
  }

  /** Number of events held in memory (those after the last closed segment). */
  get size(): number {
    return this.log.length;
  }

  /** Events in memory with seq >= fromSeq (all of them by default). */
  events(fromSeq = this.baseSeq + 1): readonly SessionEvent[] {
    const first = this.log[0]?.seq ?? this.lastSeq + 1;
    return fromSeq <= first ? this.log : this.log.slice(fromSeq - first);
  }

  event(seq: number): SessionEvent | undefined {
    const first = this.log[0]?.seq;
    return first === undefined ? undefined : this.log[seq - first];
  }

  on<K extends keyof SessionEvents>(name: K, listener: (...args: SessionEvents[K]) => unknown): Unsubscribe {
    return this.emitter.on(name, listener);
  }

  /**
   * Validates, assigns the next seq, deep-freezes, commits and notifies. A rejected
   * event throws `SessionEventError` and leaves no trace. Success means "in memory";
   * await `SessionStore.flush()` for durability.
   */
  append<T extends string>(type: T, data: EventData<T>, options: AppendOptions = {}): SessionEvent {
    if (this.readOnlyReason !== undefined)
      throw new ReadOnlySessionError(`session ${this.id} is read-only: ${this.readOnlyReason}`);
    const candidate: SessionEvent = {
      seq: this.lastSeq + 1,
      time: options.time ?? Date.now(),
      type,
      data: structuredClone(data),
    };
    if (options.surface !== undefined) candidate.surface = structuredClone(options.surface);
    if (options.sources !== undefined) candidate.sources = [...options.sources];
    const validated = this.validate(candidate);
    this.commit(validated, true);
    return validated.event;
  }

  /** Takes an event written by another process (read-only followers). */
  applyExternal(raw: unknown): SessionEvent {
    const validated = this.validate(raw as SessionEvent);
    this.commit(validated, false);
    this.emitter.emit("external", validated.event, this);
    return validated.event;
  }

  /**
   * The model context: the cumulative summary (if any) then the Surface's messages.
   * Incremental: an append projects only the new node; a replace rebuilds. The array
   * is owned by the session: read it, do not keep it across appends.
   */
  deriveMessages(): readonly Message[] {
    const nodes = this.surfaceManager.nodes;
    const offset = this.currentSummary ? 1 : 0;
    if (this.cachedGeneration !== this.surfaceManager.replaceGeneration) {
      this.messageCache = this.currentSummary ? [summaryMessage(this.currentSummary)] : [];
      this.cachedNodes = 0;
      this.cachedGeneration = this.surfaceManager.replaceGeneration;
    }
    for (let i = this.cachedNodes; i < nodes.length; i++) {
      this.messageCache[i + offset] = deriveEventMessage(this.event(nodes[i]!)!);
      this.projections++;
    }
    this.cachedNodes = nodes.length;
    return this.messageCache;
  }

  /**
   * Drops events through `throughSeq` from memory once they are closed into a segment
   * whose footer is `summary`, and rebuilds the Surface from what remains — the same
   * fold a cold open performs, so hot and cold agree.
   */
  closePrefix(summary: PrefixSummary): void {
    const through = summary.throughSeq;
    if (through < this.baseSeq || through > this.lastSeq) {
      throw new SessionEventError(
        `cannot close prefix through ${through}: memory holds ${this.baseSeq + 1}..${this.lastSeq}`,
      );
    }
    const kept = this.events(through + 1);
    this.log.splice(0, this.log.length - kept.length);
    this.currentSummary = {
      ...summary,
      messageCount: summary.messageCount ?? this.messageCount - this.countMessages(kept),
    };
    this.surfaceManager.reset(through);
    for (const event of this.log) this.surfaceManager.commit(this.surfaceManager.plan(event));
    this.emitter.emit("prefix-closed", this.currentSummary, this);
  }

  /** Marks the session read-only (lost the writer lock, damaged storage). */
  setReadOnly(reason: string): void {
    this.readOnlyReason = reason;
    this.emitter.emit("read-only", reason, this);
  }

  private countMessages(events: readonly SessionEvent[]): number {
    let n = 0;
    for (const e of events) if (isMessageType(e.type)) n++;
    return n;
  }

  private validate(raw: SessionEvent): { event: SessionEvent; plan: SurfacePlan } {
    const parsed = SessionEventSchema.safeParse(raw);
    if (!parsed.success)
      throw new SessionEventError(
        `invalid event: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    const expected = this.lastSeq + 1;
    if (raw.seq !== expected) throw new SessionEventError(`event seq ${raw.seq} does not follow ${expected - 1}`);
    const schema = EVENT_DATA_SCHEMAS[raw.type];
    if (schema) {
      const data = schema.safeParse(raw.data);
      if (!data.success) {
        throw new SessionEventError(
          `invalid ${raw.type} data: ${data.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ")}`,
        );
      }
    } else if (raw.data === undefined) {
      throw new SessionEventError(`${raw.type} has no data`);
    }
    if (raw.sources?.some((s) => s >= raw.seq))
      throw new SessionEventError(`sources of ${raw.seq} must refer to earlier events`);
    const plan = this.surfaceManager.plan(raw);
    // The stored object is the input (not zod's output), so fields a later version
    // added are kept. Fresh appends were already cloned by append().
    return { event: deepFreeze(raw), plan };
  }

  private commit({ event, plan }: { event: SessionEvent; plan: SurfacePlan }, notify: boolean): void {
    this.log.push(event);
    this.surfaceManager.commit(plan);
    this.titleState = foldTitle(this.titleState, event);
    if (isMessageType(event.type)) this.messageCount++;
    if (event.time > this.updated) this.updated = event.time;
    if (notify) this.emitter.emit("event", event, this);
  }
}
