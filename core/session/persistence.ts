import type { AgentSessionRef, ContentBlock, LocalSessionRef, SessionEvent } from "../protocol";
import type { Unsubscribe } from "../util/emitter";
import type { Session } from "./session";
import type { SessionStore } from "./store";
import type { TitleSourceKind } from "./title";

/**
 * The backend-neutral persistence contract (seed 003's SessionPersistence): the store
 * keeps sessions in memory; a backend makes them durable, reopens and lists them.
 * The JSONL/zstd backend is `core/storage`; another backend implements the same.
 */

export type { LocalSessionRef } from "../protocol/refs";

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
  forkedFrom?: { sessionId: string; agentId: string; atSeq: number; validPrefix?: boolean };
  archived: boolean;
  /** Live in this process's SessionStore. */
  hot: boolean;
  running?: boolean;
  /** Why the session cannot be written (another writer, damaged storage, archived). */
  readOnly?: string;
}

/**
 * A folder in a sessions area that a list leaves out because it is not a session it can
 * show (no event log, an identity that disagrees with where it is, a corrupt id). Named
 * by its folder only: it never borrows a session's id or title.
 */
export interface DamagedFolder {
  agentId: string;
  archived: boolean;
  /** The directory's name in its area (`<agent>/sessions/<folder>`). */
  folder: string;
  reason: string;
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

/** The draft of the assistant message being streamed (DESIGN §3): at most one per session. */
export interface Draft {
  draftId: string;
  blocks: readonly ContentBlock[];
  provider?: string;
  model?: string;
}

/** What the agent loop and compaction need from the session store; `Sessions` implements it. */
export interface SessionStoragePort {
  writeDraft(session: Session, draft: Draft): Promise<void>;
  discardDraft(session: Session): Promise<void>;
  /** Creates the segment for 1..throughSeq, rewrites Active, then drops the prefix from memory. */
  closePrefix(session: Session, throughSeq: number, summaryText: string): Promise<void>;
  flush(session: Session): Promise<void>;
}

export interface ListFilter {
  agentId?: string;
  /** false (default): live sessions; true: archived ones. */
  archived?: boolean;
  /**
   * Also check that each listed session's event log still exists (one cheap file check
   * per session, ~15 % of a 10,000-session list): a session whose log is gone is then
   * listed with `damaged`. Hosts that show a tree pass it; without it lists trust
   * meta.json (a session without meta.json is always checked).
   */
  verifyLogs?: boolean;
  /**
   * Receives each folder the list left out as damaged (same enumeration, no extra
   * reads): `sessions list --damaged` and the tree's "Damaged" group.
   */
  onDamaged?: (folder: DamagedFolder) => void;
  /**
   * Only the `limit` newest of each agent (the tree's first page: every agent's level and
   * its newest rows, as the full list shows them), from one bounded pass: no meta.json
   * read beyond what the page needs when mtimes order the folders (see list-newest.ts).
   * Folders without a usable meta.json are left out and not reported: the full list that
   * follows rebuilds or reports them.
   */
  limit?: number;
  /**
   * Only these sessions (of the filter's area), those that still list healthy: one `lstat`
   * of the folder and one meta.json read each, no enumeration of the area (a tree's rows
   * remembered from the last window, drawn before its first page: see list-only.ts). A
   * session gone, moved or damaged is left out and not reported.
   */
  sessions?: readonly AgentSessionRef[];
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
  /** Fork a damaged session's valid prefix (refused otherwise); the fork's `forkedFrom.validPrefix` says so. */
  validPrefix?: boolean;
}

export interface SessionPersistence {
  /** Subscribes to the store's lifecycle (created / flush / disposed). */
  attach(store: SessionStore): Unsubscribe;
  /** True when the session exists in storage (live or archived). Synchronous on purpose: `create` uses it. */
  existsSync(ref: LocalSessionRef): boolean;
  /** Builds the session from storage (recovering it); the caller adopts it into the store. */
  open(ref: LocalSessionRef): Promise<{ session: Session; report: RepairReport }>;
  /** List projection of a hot session. */
  describe(session: Session): SessionListItem;
  /** Every stored session (cold view), without parsing event logs. */
  list(filter?: ListFilter): Promise<SessionListItem[]>;
  messages(ref: LocalSessionRef, options?: { beforeSequence?: number }, hot?: Session): Promise<HistoryPage>;
  writeDraft(session: Session, draft: Draft): Promise<void>;
  discardDraft(session: Session): Promise<void>;
  closePrefix(session: Session, throughSeq: number, summaryText: string): Promise<void>;
  fork(ref: LocalSessionRef, options: ForkOptions, hot?: Session): Promise<SessionListItem>;
  archive(ref: LocalSessionRef): Promise<void>;
  unarchive(ref: LocalSessionRef): Promise<void>;
  delete(ref: LocalSessionRef): Promise<void>;
  /** Deletes a folder a list reported damaged, if it still is (never a session). */
  deleteDamaged?(folder: DamagedFolder): Promise<void>;
  residentBytes(session: Session): number;
  onChange(listener: (change: SessionChange) => void): Unsubscribe;
  /** Write failures retried in the background, lost locks, follower errors. */
  onError?(listener: (error: Error, session: Session | undefined) => void): Unsubscribe;
  /** Flushes one session and lets go of its files and lock (the store disposed it). */
  release(session: Session): Promise<void>;
  close(): Promise<void>;
}
