export {
  type SearchHit,
  SearchQueryError,
  type AgentProfile,
  type ApprovalSettings,
  type SessionApprovalRequest,
  type WorkspaceRuntimeOptions,
  type LiveOptions,
  type RunResult,
  type CompactNowResult,
  type WorkspaceRuntimeApi,
} from "./types";
export { RestrictedModeError } from "./errors";
export { BUILTIN_AGENTS } from "./agents";
export { searchWorkspace, inert, inertJson } from "./search";
export { singleProvider, type RuntimeFactory, createWorkspaceRuntime } from "./create";
export {
  CompactionConfig,
  type CompactionSettings,
  ProviderProfileSchema,
  type ProviderProfile,
  listServerModels,
  checkConnection,
  probeModels,
  ApprovalPolicy,
  settingsForPolicy,
  type ApproveFn,
  type DamagedFolder,
  type Session,
  type SessionChange,
  type SessionListItem,
  type TranscriptFormat,
  SessionNotFoundError,
  byUpdated,
  hop,
  DEFAULT_RULES_BUDGET,
  ruleNames,
  resolveEnvProvider,
  ProviderConfigError,
  type ResolvedProvider,
  eventMarkdown,
  renderTranscript,
  usageAfterCompactions,
  wholeHistory,
} from "./host";
export { type RestoreScope, type ConflictChoice, type RestorePreview, type RestoreOutcome } from "./restore";
export { type RestoreFilePlan } from "../checkpoints/plan";
