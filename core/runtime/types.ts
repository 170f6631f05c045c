import type { AgentEvent, ApprovalDecision, ApprovalPreview, ContentBlock } from "../protocol";
import type { HistoryPage, RepairReport, Session, SessionChange, SessionListItem, SessionPersistence, SessionRef } from "../session";
import type { ProviderProfile } from "../llm/types";
import type { Tool, ToolKind } from "../tools/types";
import type { CompactionSettings } from "../compaction/config";
import type { Unsubscribe } from "../util/emitter";

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

/** Per-kind approval: "auto" runs without asking, "ask" asks the host, "deny" refuses. */
export interface ApprovalSettings {
  reads: "ask" | "auto";
  edits: "ask" | "auto";
  commands: "ask" | "auto";
  /** Exact commands or prefixes that run without asking (never when chained or redirected). */
  allowedCommands?: readonly string[];
}

export interface RuntimeApprovalRequest {
  sessionId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  kind: ToolKind;
  arguments: Record<string, unknown>;
  summary: string;
  preview?: ApprovalPreview;
}

export interface ModelSelection {
  /** A provider profile id. */
  provider: string;
  model: string;
  contextWindow?: number;
}

export interface WorkspaceRuntimeOptions {
  /** Realpath of the workspace folder. */
  root: string;
  /** Another backend than the JSONL store (default). */
  persistence?: SessionPersistence;
  /** Current provider profiles, API keys resolved (called per run, so settings changes apply). */
  providers: () => readonly ProviderProfile[] | Promise<readonly ProviderProfile[]>;
  /** The model new runs use unless a run names one. */
  model: () => ModelSelection | undefined;
  approval: () => ApprovalSettings;
  /** Asks the user; without it, anything not auto-approved is refused (by policy). */
  approve?: (request: RuntimeApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;
  /** The host's tools (Node tools for the CLI, editor-backed ones in VS Code). */
  tools: () => readonly Tool[];
  agents?: readonly AgentProfile[];
  compaction?: CompactionSettings;
  /** Why nothing may run (Restricted Mode), or undefined when runs are allowed. */
  restricted?: () => string | undefined;
  /** Extra facts for the system prompt (git branch, top-level entries). */
  workspaceNotes?: () => Promise<string[]>;
  env?: NodeJS.ProcessEnv;
  maxSteps?: number;
  titles?: "fallback" | "llm";
}

export interface RunResult {
  reason: "completed" | "cancelled" | "error" | "max-steps";
  error?: string;
  steps: number;
}

export interface WorkspaceRuntimeApi {
  readonly root: string;
  readonly agents: readonly AgentProfile[];
  /** Every agent event of every session of this folder. */
  onEvent(listener: (event: AgentEvent) => void): Unsubscribe;
  /** The store's change feed (`Sessions.onChange`): list items created, updated, removed. */
  onChange(listener: (change: SessionChange) => void): Unsubscribe;
  list(filter?: { agentId?: string; archived?: boolean }): Promise<SessionListItem[]>;
  create(agentId?: string): Session;
  open(ref: SessionRef): Promise<{ session: Session; report: RepairReport }>;
  messages(ref: SessionRef, options?: { beforeSequence?: number }): Promise<HistoryPage>;
  /** Sends input: starts a turn, or steers the running one. Resolves when the run ends. */
  prompt(ref: SessionRef, input: string | ContentBlock[], options?: { model?: ModelSelection }): Promise<RunResult[]>;
  steer(ref: SessionRef, input: string | ContentBlock[]): void;
  cancel(ref: SessionRef): void;
  cancelAll(): void;
  isRunning(ref: SessionRef): boolean;
  compactNow(ref: SessionRef): Promise<{ closed: number; note?: string }>;
  rename(ref: SessionRef, title: string): Promise<void>;
  fork(ref: SessionRef, options?: { atSeq?: number }): Promise<SessionListItem>;
  archive(ref: SessionRef): Promise<void>;
  unarchive(ref: SessionRef): Promise<void>;
  delete(ref: SessionRef): Promise<void>;
  /** Cancels every run, flushes every session and releases every lock. */
  close(): Promise<void>;
}
