import type { ReasoningEffort } from "../protocol";
import type { CheckpointRecorder } from "../checkpoints/recorder";
import type { CompactionSettings } from "../compaction";
import type { AssistantMessageData } from "../protocol";
import type { Session, SessionStoragePort } from "../session";
import type { LlmClient } from "../llm/types";
import type { ToolRegistry } from "../tools/registry";
import type { ToolKind } from "../tools/types";
import type { ApprovalPolicy, ApprovalSettings, ApproveFn, SessionApprovals } from "./approval";
import type { RetryPolicy } from "./retry";
import type { Endpoint } from "./model-call";
import type { WorkspaceFacts } from "./system-prompt";

export interface CallSettings {
  provider: string;
  model: string;
  reasoningEffort?: ReasoningEffort;
  maxTokens?: number;
  temperature?: number;
}

export interface AgentOptions {
  session: Session;
  storage: SessionStoragePort;
  llm: LlmClient;
  tools: ToolRegistry;
  model: CallSettings;
  workspace: WorkspaceFacts;
  /** What runs without asking: a CLI level, settings, or a function read at every call (settings changes apply). */
  approval: ApprovalPolicy | ApprovalSettings | (() => ApprovalSettings);
  approve?: ApproveFn;
  /** Why nothing may run (Restricted Mode), read at every call; undefined when runs are allowed. */
  restricted?: () => string | undefined;
  /** Tool kinds this agent never runs, whatever the approval settings. */
  forbiddenKinds?: readonly ToolKind[];
  /** The agent's name in refusals ("the ask agent does not run edit tools"). */
  agentName?: string;
  /** Added to the system prompt. */
  instructions?: string;
  /**
   * The project's rules section of the system prompt (core/rules), loaded before every
   * request so an edited rules file reaches the next one; "" when none applies.
   */
  rules?: () => Promise<string>;
  /** "Allow for this session" decisions (the host may keep them across agents of one session). */
  sessionApprovals?: SessionApprovals;
  maxSteps?: number;
  /** Overrides what the LLM layer knows of the model's window. */
  contextWindow?: number;
  compaction?: CompactionSettings;
  retry?: Partial<RetryPolicy>;
  /** "llm": after the fallback title, ask the model for a better one. */
  titles?: "fallback" | "llm";
  /** Environment for commands (scrubbed by the tool). */
  env?: NodeJS.ProcessEnv;
  /** Records what edits and commands change (restore, issue 24). */
  checkpoints?: CheckpointRecorder;
  /** The server a provider profile points at (host:port) and the setting that names it, for errors the user can act on. */
  endpoint?: (provider: string) => Endpoint;
  now?: () => Date;
  random?: () => number;
}

export type TurnEndReason = "completed" | "cancelled" | "error" | "max-steps";
export interface TurnOutcome {
  reason: TurnEndReason;
  steps: number;
  error?: Error;
  /** The last assistant message of the turn, if any. */
  answer?: AssistantMessageData;
}
