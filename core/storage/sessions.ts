import {
  DEFAULT_AGENT_ID,
  type DamagedFolder,
  type Draft,
  SessionStore,
  type HistoryPage,
  type ListFilter,
  type RepairReport,
  type Session,
  type SessionChange,
  type SessionListItem,
  type SessionPersistence,
  type LocalSessionRef,
} from "../session";
import { sessionKey } from "../protocol";
import type { Unsubscribe } from "../util/emitter";
import { JsonlSessionPersistence, type JsonlPersistenceOptions } from "./jsonl-persistence";
import { encodeId } from "./id-codec";
import { sortByUpdated } from "./list/list";
import { firstOfEachAgent } from "./list/order";

export interface SessionsOptions<
  P extends SessionPersistence = JsonlSessionPersistence,
> extends JsonlPersistenceOptions {
  store?: SessionStore;
  /** Another backend; the JSONL store (built from the other options) by default. */
  persistence?: P;
}

/**
 * The façade hosts use: the hot `SessionStore` joined to a persistence backend (the
 * JSONL store unless another is passed). Lists merge hot (memory) and cold by id, hot
 * winning; every operation that touches a hot session flushes or disposes it first.
 */
export class Sessions<P extends SessionPersistence = JsonlSessionPersistence> {
  readonly store: SessionStore;
  readonly persistence: P;
  private readonly detach: Unsubscribe;
  private readonly opening = new Map<string, Promise<{ session: Session; report: RepairReport }>>();
  /** Changes of a session whose stale read-only hot copy is still being disposed (see whileReleased). */
  private readonly held = new Map<string, (() => void)[]>();

  constructor(options: SessionsOptions<P>) {
    this.store = options.store ?? new SessionStore();
    this.persistence = options.persistence ?? (new JsonlSessionPersistence(options) as SessionPersistence as P);
    this.detach = this.persistence.attach(this.store);
  }

  /** A new hot session; no file exists until its first event is written. */
  create(options: { agentId?: string; id?: string } = {}): Session {
    if (
      options.id !== undefined &&
      this.persistence.existsSync({ sessionId: options.id, agentId: options.agentId ?? DEFAULT_AGENT_ID })
    ) {
      throw new Error(`session ${JSON.stringify(options.id)} already exists on disk`);
    }
    return this.store.create(options);
  }

  /** Opens (and recovers) a stored session, or returns the hot one. */
  async open(ref: { agentId?: string; sessionId: string }): Promise<{ session: Session; report: RepairReport }> {
    const agentId = ref.agentId ?? DEFAULT_AGENT_ID;
    const hot = this.store.get(ref.sessionId, agentId);
    if (hot)
      return {
        session: hot,
        report: { repaired: false, actions: [], ...(hot.readOnly !== undefined && { readOnly: hot.readOnly }) },
      };
    const key = sessionKey({ agentId, sessionId: ref.sessionId });
    let pending = this.opening.get(key);
    if (!pending) {
      pending = this.persistence.open({ agentId, sessionId: ref.sessionId }).then((opened) => {
        this.store.adopt(opened.session);
        return opened;
      });
      this.opening.set(key, pending);
      pending.finally(() => this.opening.delete(key)).catch(() => {});
    }
    return pending;
  }

  flush(session: Session): Promise<void> {
    return this.store.flush(session);
  }

  async list(filter: ListFilter = {}): Promise<SessionListItem[]> {
    const report = filter.onDamaged;
    // A session of this process being materialised (folder made, log not yet published) is not damaged.
    const onDamaged =
      report &&
      ((d: DamagedFolder) =>
        void (this.store.list({ agentId: d.agentId }).some((s) => encodeId(s.id) === d.folder) || report(d)));
    const named = filter.sessions && new Set(filter.sessions.map((ref) => sessionKey(ref)));
    const hotOf = () =>
      filter.archived
        ? []
        : this.store
            .list(filter.agentId !== undefined ? { agentId: filter.agentId } : {})
            .filter((s) => !named || named.has(sessionKey({ agentId: s.agentId, sessionId: s.id })));
    // A first page asks for as many more cold items (of each agent) as hot ones may replace.
    const coldFilter = filter.limit === undefined ? filter : { ...filter, limit: filter.limit + hotOf().length };
    const cold = await this.persistence.list(onDamaged ? { ...coldFilter, onDamaged } : coldFilter);
    // Hot wins: cold items whose session is live in this process are replaced (those live by now).
    const hot = hotOf();
    const items = filter.archived ? cold : cold.filter((item) => !this.store.get(item.sessionId, item.agentId));
    for (const session of hot) {
      const item = this.persistence.describe(session);
      if (!item.archived) items.push(item);
    }
    sortByUpdated(items);
    return filter.limit === undefined ? items : firstOfEachAgent(items, filter.limit);
  }

  onChange(listener: (change: SessionChange) => void): Unsubscribe {
    return this.persistence.onChange((change) => {
      const held = this.held.get(sessionKey(change));
      if (held) held.push(() => listener(change));
      else listener(change);
    });
  }

  messages(ref: LocalSessionRef, options: { beforeSequence?: number } = {}): Promise<HistoryPage> {
    return this.persistence.messages(ref, options, this.hot(ref));
  }

  writeDraft(session: Session, draft: Draft): Promise<void> {
    return this.persistence.writeDraft(session, draft);
  }

  discardDraft(session: Session): Promise<void> {
    return this.persistence.discardDraft(session);
  }

  closePrefix(session: Session, throughSeq: number, summaryText: string): Promise<void> {
    return this.persistence.closePrefix(session, throughSeq, summaryText);
  }

  /** Appends a `session/title` with source user (opening the session if cold); stops automatic titles. */
  async rename(ref: LocalSessionRef, title: string): Promise<void> {
    const { session } = await this.open(ref);
    session.append("session/title", { title, messageSeqs: [], source: { kind: "user" } });
    await this.flush(session);
  }

  fork(
    ref: LocalSessionRef,
    options: { atSeq?: number; newId?: string; validPrefix?: boolean } = {},
  ): Promise<SessionListItem> {
    return this.persistence.fork(ref, options, this.hot(ref));
  }

  async archive(ref: LocalSessionRef): Promise<void> {
    await this.whileReleased(ref, () => this.persistence.archive(ref));
  }

  async unarchive(ref: LocalSessionRef): Promise<void> {
    await this.whileReleased(ref, () => this.persistence.unarchive(ref));
  }

  async delete(ref: LocalSessionRef): Promise<void> {
    await this.whileReleased(ref, () => this.persistence.delete(ref));
  }

  /** Deletes a folder a list reported damaged (see `ListFilter.onDamaged`). */
  async deleteDamaged(folder: DamagedFolder): Promise<void> {
    if (!this.persistence.deleteDamaged) throw new Error("this store cannot delete damaged folders");
    await this.persistence.deleteDamaged(folder);
  }

  residentBytes(session: Session): number {
    return this.persistence.residentBytes(session);
  }

  /** Flushes every session and releases its lock. */
  async close(): Promise<void> {
    try {
      const sessions = this.store.list();
      await this.store.disposeAll();
      await Promise.all(sessions.map((s) => this.persistence.release(s)));
    } finally {
      await this.persistence.close();
      this.detach();
    }
  }

  private hot(ref: LocalSessionRef): Session | undefined {
    return this.store.get(ref.sessionId, ref.agentId ?? DEFAULT_AGENT_ID);
  }

  /**
   * Runs a directory operation on a session that may be hot. A writable hot session is
   * flushed and released first (its lock must be free); a read-only one (another
   * process writes it, or it is damaged) stays until the operation succeeded, so a
   * refused operation leaves it open and following.
   */
  private async whileReleased(ref: LocalSessionRef, op: () => Promise<void>): Promise<void> {
    const session = this.hot(ref);
    if (session && session.readOnly === undefined) await this.dispose(session);
    if (!session || session.readOnly === undefined) return op();
    // The operation's change is told once the stale copy is gone: a listener that reopens
    // the session on it (a chat view) must find it where it now is, not the old copy.
    const key = sessionKey({ agentId: session.agentId, sessionId: session.id });
    const held: (() => void)[] = [];
    this.held.set(key, held);
    try {
      await op();
      await this.dispose(session);
    } finally {
      if (this.held.get(key) === held) this.held.delete(key);
      for (const tell of held) tell();
    }
  }

  private async dispose(session: Session): Promise<void> {
    await this.store.dispose(session);
    await this.persistence.release(session);
  }
}
