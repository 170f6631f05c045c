/**
 * What a host uses besides one folder's `WorkspaceRuntimeApi` (issue 22: hosts import only core/runtime,
 * core/protocol and core/tools). These need no folder: the settings' schemas, resolving the `DOWNCITY_*` profile,
 * listing a server's models and testing a connection (the connect form and the model picker run before any folder's
 * runtime exists), the shapes a runtime hands out, and the transcript text the CLI prints page by page.
 */
export { CompactionConfig, type CompactionSettings } from "../compaction/config";
export { ProviderProfileSchema } from "../llm/profile";
export type { ProviderProfile } from "../llm/types";
export { listServerModels } from "../llm/list-models";
export { checkConnection, probeModels } from "../llm/probe";
export { ApprovalPolicy, settingsForPolicy, type ApproveFn } from "../agent/approval";
export type {
  DamagedFolder,
  HistoryPage,
  ListFilter,
  RepairReport,
  Session,
  SessionChange,
  SessionListItem,
  TranscriptFormat,
} from "../session";
export { SessionNotFoundError } from "../storage/errors";
export { byUpdated } from "../storage/list/list";
export type { Unsubscribe } from "../util/emitter";
export { hop } from "../util/hop-trace";
export { DEFAULT_RULES_BUDGET, ruleNames } from "../rules";
export { resolveEnvProvider, ProviderConfigError, type ResolvedProvider } from "./env-provider";
export { eventMarkdown, renderTranscript, usageAfterCompactions, wholeHistory } from "./transcript";
