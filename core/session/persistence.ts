import type { ContentBlock, SessionEvent } from "../protocol";
import type { Unsubscribe } from "../util/emitter";
import type { Session } from "./session";
import type { SessionStore } from "./store";
import type { TitleSourceKind } from "./title";

/**
 * The backend-neutral persistence contract (seed 003's SessionPersistence): the store
 * keeps sessions in memory; a backend makes them durable, reopens and lists them.
 * The JSONL/zstd backend is `core/storage`; another backend implements the same.
 */

export interface SessionRef {
  agentId?: string;
  sessionId: string;
}

export interface SessionListItem {
  sessionId: string;
  agentId: string;
  title: string | undefined;
  titleSource: TitleSourceKind | undefined;
  model: string | undefined;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  historyBytes: number;
  timeZone: string;
  forkedFrom?: { sessionId: string; agentId: string; atSeq: number };
  archived: boolean;
  /** Live in this process's SessionStore. */
  hot: boolean;
  running?: boolean;
  /** Why the session cannot be written (another writer, damaged storage, archived). */
  readOnly?: string;
}

export interface RepairReport {
  repaired: boolean;
  /** Human-readable, e.g. "truncated torn tail: 37 bytes after seq 1204". */
  actions: string[];
  readOnly?: string;
}

export interface HistoryPage {
  events: SessionEvent[];
  firstSeq: number;
  lastSeq: number;
  /** Cumulative summary text in force at the end of the page's range, if any. */
  summary?: string;
  /** Older events exist (in segments before `firstSeq`). */
  hasOlder: boolean;
}

export interface DraftInput {
  draftId: string;
  blocks: readonly ContentBlock[];
  provider?: string;
  model?: string;
}

export interface ListFilter {
  agentId?: string;
  /** false (default): live sessions; true: archived ones. */
  archived?: boolean;
}

export interface SessionChange {
  kind: "created" | "updated" | "removed";
  item?: SessionListItem;
  agentId: string;
  sessionId: string;
}

export interface ForkOptions {
  atSeq?: number;
  newId?: string;
}

export interface SessionPersistence {
  /** Subscribes to the store's lifecycle (created / flush / disposed). */
  attach(store: SessionStore): Unsubscribe;
  /** True when the session exists in storage (live or archived). Synchronous on purpose: `create` uses it. */
  existsSync(ref: SessionRef): boolean;
  /** Builds the session from storage (recovering it); the caller adopts it into the store. */
  open(ref: SessionRef): Promise<{ session: Session; report: RepairReport }>;
  /** List projection of a hot session. */
  describe(session: Session): SessionListItem;
  /** Every stored session (cold view), without parsing event logs. */
  list(filter?: ListFilter): Promise<SessionListItem[]>;
  messages(ref: SessionRef, options?: { beforeSequence?: number }, hot?: Session): Promise<HistoryPage>;
  writeDraft(session: Session, draft: DraftInput): Promise<void>;
  discardDraft(session: Session): Promise<void>;
  closePrefix(session: Session, throughSeq: number, summaryText: string): Promise<void>;
  fork(ref: SessionRef, options: ForkOptions, hot?: Session): Promise<SessionListItem>;
  archive(ref: SessionRef): Promise<void>;
  unarchive(ref: SessionRef): Promise<void>;
  delete(ref: SessionRef): Promise<void>;
  residentBytes(session: Session): number;
  /** Flushes what is queued for the session and releases what it holds (its writer lock). */
  release(session: Session): Promise<void>;
  onChange(listener: (change: SessionChange) => void): Unsubscribe;
  close(): Promise<void>;
}
