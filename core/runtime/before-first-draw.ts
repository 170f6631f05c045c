/**
 * What the extension takes from core before the Sessions tree's first draw (extension/activate.ts: the tree and what it
 * stands on), each from the module that holds it (issue 20). Those modules are evaluated before the tree's first row;
 * importing core/runtime's index would evaluate everything it re-exports too (the agent, the providers, the
 * protocol's schemas), which the rest of the extension (extension/features.ts) evaluates after that row instead.
 */
export { hop } from "../util/hop-trace";
export { byUpdated } from "../storage/list/order";
export { DEFAULT_RULES_BUDGET } from "../rules/project-rules";
export { resolveEnvProvider, ProviderConfigError, type ResolvedProvider } from "../llm/env-profile";
export { CompactionConfig, type CompactionSettings } from "../compaction/config";
export { ProviderProfileSchema } from "../llm/profile";
export { BUILTIN_AGENTS } from "./agents";
export { createWorkspaceRuntime, type RuntimeFactory } from "./create";
