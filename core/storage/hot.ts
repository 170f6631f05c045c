import type { Session, SessionChange, SessionListItem } from "../session";
import { Emitter, type Unsubscribe } from "../util/emitter";
import type { StorageContext } from "./context";
import type { WriterLock } from "./fs/lock";
import type { SessionPaths } from "./layout";
import { localTimeZone, type SessionMeta } from "./meta";
import type { ActiveFollower } from "./open/follower";
import type { ActiveLogWriter } from "./write/active-writer";
import type { MetaWriter } from "./write/meta-writer";

/** Per-session state of a hot session. */
export interface Entry {
  session: Session;
  paths: SessionPaths;
  writer?: ActiveLogWriter;
  lock?: WriterLock;
  follower?: ActiveFollower;
  model: string | undefined;
  timeZone: string;
  forkedFrom?: SessionMeta["forkedFrom"];
  segmentBytes: number;
  /** Serialised bytes of the events held in memory (Active). */
  activeBytes: number;
  meta: MetaWriter;
  /** Why the stored log is damaged (the session is then read-only). */
  damage?: { reason: string; inSegments: boolean };
  detach: Unsubscribe[];
}

type Events = { change: [SessionChange]; error: [Error, Session | undefined] };

/**
 * The hot sessions of one store and its two feeds: what the write, open, history and
 * fork/archive/delete modules share (`JsonlSessionPersistence` is their facade).
 */
export class HotSessions {
  readonly entries = new Map<Session, Entry>();
  readonly emitter = new Emitter<Events>();

  constructor(readonly ctx: StorageContext) {}

  emitError(error: Error, session: Session | undefined): void {
    this.emitter.emit("error", error, session);
  }

  emitChange(kind: SessionChange["kind"], agentId: string, sessionId: string, item?: SessionListItem): void {
    const change: SessionChange = { kind, agentId, sessionId };
    if (item) change.item = item;
    this.emitter.emit("change", change);
  }

  /** A hot session's list row (its counters come from memory, not meta.json). */
  describe(session: Session): SessionListItem {
    const entry = this.entries.get(session);
    const title = session.title;
    const stats = session.stats;
    const item: SessionListItem = {
      sessionId: session.id,
      agentId: session.agentId,
      title: title.title,
      titleSource: title.source,
      model: entry?.model,
      createdAt: session.createdAt,
      updatedAt: stats.updatedAt,
      messageCount: stats.messageCount,
      historyBytes: (entry?.segmentBytes ?? 0) + (entry?.writer?.size ?? entry?.activeBytes ?? 0),
      timeZone: entry?.timeZone ?? localTimeZone(),
      archived: entry?.paths.area === "archived",
      hot: true,
    };
    if (entry?.forkedFrom) item.forkedFrom = entry.forkedFrom;
    if (session.readOnly !== undefined) item.readOnly = session.readOnly;
    if (session.running) item.running = true;
    return item;
  }
}
