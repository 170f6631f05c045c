import type { SessionEvent } from "../protocol";
import { Emitter, type Unsubscribe } from "../util/emitter";
import { Session, type SessionInit } from "./session";

export const DEFAULT_AGENT_ID = "default";

export type SessionStoreEvents = {
  created: [session: Session];
  /** A session opened from storage joined the hot map. */
  opened: [session: Session];
  event: [event: SessionEvent, session: Session];
  /** Awaited by `flush()`: persistence backends drain their queues here. */
  flush: [session: Session];
  disposed: [session: Session];
};

export interface CreateSessionOptions {
  /** Hosts pass `session-<uuid>`; without one the store picks `session-1`, `session-2`, … */
  id?: string;
  agentId?: string;
  createdAt?: number;
}

/**
 * The hot map of live sessions (seed 003's SessionStore). Persistence subscribes to its
 * notifications; nothing here touches the disk. Ids are opaque and never parsed.
 */
export class SessionStore {
  private readonly byAgent = new Map<string, Map<string, Session>>();
  private readonly detach = new Map<Session, Unsubscribe>();
  private readonly emitter = new Emitter<SessionStoreEvents>();
  private fallbackCounter = 0;

  on<K extends keyof SessionStoreEvents>(name: K, listener: (...args: SessionStoreEvents[K]) => unknown): Unsubscribe {
    return this.emitter.on(name, listener);
  }

  create(options: CreateSessionOptions = {}): Session {
    const agentId = options.agentId ?? DEFAULT_AGENT_ID;
    const id = options.id ?? this.nextFallbackId(agentId);
    if (this.get(id, agentId)) throw new Error(`session ${id} already exists for agent ${agentId}`);
    const init: SessionInit = { id, agentId };
    if (options.createdAt !== undefined) init.createdAt = options.createdAt;
    const session = new Session(init);
    this.add(session);
    this.emitter.emit("created", session);
    return session;
  }

  /** Adds a session built from storage (see `Session.seed`). */
  adopt(session: Session): Session {
    if (this.get(session.id, session.agentId))
      throw new Error(`session ${session.id} is already open for agent ${session.agentId}`);
    this.add(session);
    this.emitter.emit("opened", session);
    return session;
  }

  get(id: string, agentId = DEFAULT_AGENT_ID): Session | undefined {
    return this.byAgent.get(agentId)?.get(id);
  }

  list(filter: { agentId?: string } = {}): Session[] {
    if (filter.agentId !== undefined) return [...(this.byAgent.get(filter.agentId)?.values() ?? [])];
    return [...this.byAgent.values()].flatMap((m) => [...m.values()]);
  }

  /** Resolves when every persistence backend holds the session's events durably. */
  async flush(session: Session): Promise<void> {
    await this.emitter.emitAsync("flush", session);
  }

  /** Flushes, then removes the session from the hot map. */
  async dispose(session: Session): Promise<void> {
    if (this.get(session.id, session.agentId) !== session) return;
    try {
      await this.flush(session);
    } finally {
      this.byAgent.get(session.agentId)?.delete(session.id);
      this.detach.get(session)?.();
      this.detach.delete(session);
      this.emitter.emit("disposed", session);
    }
  }

  async disposeAll(): Promise<void> {
    await Promise.all(this.list().map((s) => this.dispose(s)));
  }

  private add(session: Session): void {
    let map = this.byAgent.get(session.agentId);
    if (!map) this.byAgent.set(session.agentId, (map = new Map()));
    map.set(session.id, session);
    this.detach.set(
      session,
      session.on("event", (event) => this.emitter.emit("event", event, session)),
    );
  }

  private nextFallbackId(agentId: string): string {
    let id: string;
    do id = `session-${++this.fallbackCounter}`;
    while (this.get(id, agentId));
    return id;
  }
}
