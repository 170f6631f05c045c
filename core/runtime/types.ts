import type { AgentEvent, ApprovalDecision, ContentBlock, ModelChoice, SessionEvent } from "../protocol";
import type {
  DamagedFolder,
  HistoryPage,
  ListFilter,
  RepairReport,
  Session,
  SessionChange,
  SessionListItem,
  SessionPersistence,
  LocalSessionRef,
  TranscriptFormat,
} from "../session";
import type { StoredItemAt } from "../storage/list/stored-item";
import type { ProviderProfile } from "../llm/types";
import type { Tool, ToolKind } from "../tools/types";
import type { CompactionSettings } from "../compaction/config";
import type { ApprovalRequest, ApprovalSettings } from "../agent/approval";
import type { RetryPolicy } from "../agent/retry";
import type { LlmClient } from "../llm/types";
import type { SessionsOptions } from "../storage/sessions";
import type { Unsubscribe } from "../util/emitter";
import type { SearchHit, SearchOptions } from "../protocol/search";
import type { RestoreApplyOptions, RestoreOutcome, RestorePreview } from "./restore";
import type { SessionRules } from "../protocol/rules";

export type { SearchHit, SearchOptions, SearchLocation, SearchHitKind, SearchHitPart } from "../protocol/search";
export { SearchQueryError } from "../search/errors";

/**
 * The contract of one workspace folder's agent host (issue 8): the CLI, the benchmarks,
 * the tests and the VS Code extension (one per folder) all create it from plain options.
 * `WorkspaceRuntime` in `./workspace-runtime.ts` implements it.
 */

/** An agent: its own storage partition (`agentId`), instructions and tool set. */
export interface AgentProfile {
  id: string;
  name: string;
  /** Added to the system prompt. */
  instructions?: string;
  /** Tool names offered to the model; undefined = every tool the host registered. */
  tools?: readonly string[];
  /** Tool kinds this agent may never run, whatever the policy (the "ask" agent: edit, command). */
  forbiddenKinds?: readonly ToolKind[];
}

/** Per-kind approval ("ask" | "auto") and the command allow-list; the policy logic lives in core/agent. */
export type { ApprovalSettings } from "../agent/approval";

/** The loop's approval request, with the session it comes from. */
export interface SessionApprovalRequest extends ApprovalRequest {
  sessionId: string;
  agentId: string;
}

export interface WorkspaceRuntimeOptions {
  /** Realpath of the workspace folder. */
  root: string;
  /** Another backend than the JSONL store (default). */
  persistence?: SessionPersistence;
  /** The host's file excludes (VS Code's files.exclude) for the manifests taken around commands; called once per manifest. */
  checkpointExclude?: () => (rel: string) => boolean;
  /** Current provider profiles, API keys resolved (called per run, so settings changes apply). */
  providers: () => readonly ProviderProfile[] | Promise<readonly ProviderProfile[]>;
  /** The model new runs use unless a run names one. */
  model: () => ModelChoice | undefined;
  approval: () => ApprovalSettings;
  /** Asks the user; without it, anything not auto-approved is refused (by policy). */
  approve?: (request: SessionApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;
  /** The host's tools (Node tools for the CLI, editor-backed ones in VS Code). */
  tools: () => readonly Tool[];
  /**
   * The tools of the folder's MCP servers (core/mcp), asked when a run builds its agent:
   * servers start at the first run that needs tools. Notices (a server that could not
   * start, a tool disabled for its schema) are shown in that session's chat.
   */
  mcpTools?: () => Promise<{ tools: readonly Tool[]; notices: readonly string[] }>;
  agents?: readonly AgentProfile[];
  compaction?: CompactionSettings;
  /** Why nothing may run (Restricted Mode), or undefined when runs are allowed. */
  restricted?: () => string | undefined;
  /** Extra facts for the system prompt (git branch, top-level entries). */
  workspaceNotes?: () => Promise<string[]>;
  env?: NodeJS.ProcessEnv;
  maxSteps?: number;
  titles?: "fallback" | "llm";
  /** A model client instead of the LLM runtime over `providers` (benchmarks' scripted model). */
  llm?: LlmClient;
  /**
   * Where the session search index lives: a directory outside the workspace (VS Code's
   * `storageUri`, the CLI's XDG cache); one sub-directory per workspace root. Without it
   * search reads the logs alone (slower, same hits).
   */
  searchIndexDir?: string;
  /** Store tuning (batch window, clock, fs seam) for tests and benchmarks. */
  storage?: Omit<SessionsOptions, "root" | "persistence" | "store">;
  retry?: Partial<RetryPolicy>;
  /**
   * The project's rules files (core/rules): extra names beside AGENTS.md (`CLAUDE.md`,
   * `.github/copilot-instructions.md`, `.clinerules`) and the budget in tokens, read at
   * every request. Without it, AGENTS.md alone within the default budget.
   */
  rules?: { files?: () => readonly string[]; budgetTokens?: () => number };
  /**
   * Where a provider profile's server, or its model's context window, is configured (a setting or an environment
   * variable), named in its errors: a connection error points at the first, "context too long" at the second.
   */
  providerSetting?: (profileId: string, about: "server" | "window") => string;
}

/**
 * The options a running runtime takes again when the host's settings change (see
 * `WorkspaceRuntimeApi.updateOptions`). The rest are functions read per run already.
 */
export type LiveOptions = Pick<WorkspaceRuntimeOptions, "agents" | "compaction">;

/** A session found by its meta.json path: its ids, area and list item, and its folder's name (the damaged list's key). */
export interface StoredSessionAt extends StoredItemAt {
  folder: string;
}

export interface RunResult {
  reason: "completed" | "cancelled" | "error" | "max-steps";
  error?: string;
  steps: number;
}

export interface CompactNowResult {
  /** Messages closed into a segment, as compaction/end counts them (0 when nothing could be closed). */
  closed: number;
  /** Tool results and reasoning folded on the Surface. */
  folded: number;
  throughSeq?: number;
  summaryChars?: number;
  note?: string;
}

export interface WorkspaceRuntimeApi {
  readonly root: string;
  /** The current agents (`updateOptions` may change them). */
  readonly agents: readonly AgentProfile[];
  /**
   * Settings changed: each idle session's next turn uses them; a running turn (and the
   * input queued behind it) finishes on the ones it started with.
   */
  updateOptions(options: LiveOptions): void;
  /** Every agent event of every session of this folder. */
  onEvent(listener: (event: AgentEvent) => void): Unsubscribe;
  /** The store's change feed (created, updated, removed), which the Sessions tree and the chat's list follow. */
  onChange(listener: (change: SessionChange) => void): Unsubscribe;
  list(filter?: ListFilter): Promise<SessionListItem[]>;
  /** Where the store keeps a session's files (Show Session Files); it may not exist yet. */
  sessionDir(ref: LocalSessionRef, options?: { archived?: boolean }): string;
  /** Where a folder a list reported damaged is. */
  damagedDir(folder: DamagedFolder): string;
  /** The one session whose meta.json is at `metaPath` (a file watcher saw it change), read alone; undefined when it is no session's. */
  storedItemAt(metaPath: string): Promise<StoredSessionAt | undefined>;
  /** Every event of the session, oldest first, paged back one segment at a time (the fork picker, exports). */
  history(ref: LocalSessionRef, options?: { signal?: AbortSignal }): Promise<SessionEvent[]>;
  /** The whole history as an export file's text (`md` readable, `jsonl` one event per line), paged one segment at a time. */
  exportTranscript(
    ref: LocalSessionRef,
    format: TranscriptFormat,
    options?: { title?: string; signal?: AbortSignal },
  ): Promise<string>;
  /** Deletes a folder a list reported damaged (`ListFilter.onDamaged`), if it still is. */
  deleteDamaged?(folder: DamagedFolder): Promise<void>;
  /** A new session of the agent (default: the first agent, `code`). */
  create(agentId?: string, sessionId?: string): Session;
  open(ref: LocalSessionRef): Promise<{ session: Session; report: RepairReport }>;
  messages(ref: LocalSessionRef, options?: { beforeSequence?: number }): Promise<HistoryPage>;
  /**
   * Sends input: starts a turn, or (while one runs) steers it — or, with `whenRunning:
   * "queue"`, waits to start the next turn. Resolves when the run ends.
   */
  prompt(
    ref: LocalSessionRef,
    input: string | ContentBlock[],
    options?: { model?: ModelChoice; whenRunning?: "steer" | "queue" },
  ): Promise<RunResult[]>;
  steer(ref: LocalSessionRef, input: string | ContentBlock[]): void;
  /** Runs the session's last turn again when it failed (no new user message); resolves when the run ends. */
  retry(ref: LocalSessionRef, options?: { model?: ModelChoice }): Promise<RunResult[]>;
  cancel(ref: LocalSessionRef): void;
  cancelAll(): void;
  isRunning(ref: LocalSessionRef): boolean;
  /** Compacts between runs; `cancel(ref)`, `cancelAll()`, `close()` or `signal` abort its summary request. */
  compactNow(ref: LocalSessionRef, options?: { signal?: AbortSignal }): Promise<CompactNowResult>;
  rename(ref: LocalSessionRef, title: string): Promise<void>;
  fork(ref: LocalSessionRef, options?: { atSeq?: number }): Promise<SessionListItem>;
  archive(ref: LocalSessionRef): Promise<void>;
  unarchive(ref: LocalSessionRef): Promise<void>;
  delete(ref: LocalSessionRef): Promise<void>;
  /**
   * Searches every session of the folder (issue 23): hits stream newest session first;
   * `signal` ends the stream. Throws `SearchQueryError` at once for a bad query.
   */
  search(options: SearchOptions): AsyncIterable<SearchHit>;
  /** The rules files the session's next request uses (the root's, and those of folders it touched), with what the budget cut. */
  rules(ref: LocalSessionRef): Promise<SessionRules>;
  /** Restore (issue 24): where "restore to here" on a message puts files and conversation. */
  restorePoint(ref: LocalSessionRef, messageSeq: number): Promise<number>;
  /** What restoring the files to their state right after `toSeq` would do, file by file, with its conflicts (nothing written). */
  previewRestore(ref: LocalSessionRef, toSeq: number): Promise<RestorePreview>;
  /** The preview of undoing the session's last restore, and the restore it undoes. */
  previewUndoRestore(ref: LocalSessionRef): Promise<{ plan: RestorePreview; undoOf: number }>;
  /** Writes a previewed restore (or undo); refused in Restricted Mode, on a read-only session and while it runs. */
  applyRestore(ref: LocalSessionRef, plan: RestorePreview, options: RestoreApplyOptions): Promise<RestoreOutcome>;
  /** Loads the selected model's SDK ahead of the first message (optional: fakes need not). */
  warm?(): Promise<void>;
  /** Cancels every run, flushes every session and releases every lock. */
  close(): Promise<void>;
}
