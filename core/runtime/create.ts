import type { ResolvedProvider } from "../llm/env-profile";
import { DeferredRuntime } from "./deferred-runtime";
import type { WorkspaceRuntimeApi, WorkspaceRuntimeOptions } from "./types";

/** Makes one folder's runtime: what a host may swap (tests count or wrap it). */
export type RuntimeFactory = (options: WorkspaceRuntimeOptions) => WorkspaceRuntimeApi;

/**
 * The one place a folder's runtime is made: the extension (one per folder), the CLI's `run` and `sessions compact`,
 * the benchmarks and the test harness all call it, so they run the same thing.
 */
export const createWorkspaceRuntime: RuntimeFactory = (options) =>
  new DeferredRuntime(options, (given) => {
    // Required here, not imported: its modules are evaluated when a folder first needs more than its list (issue 20).
    const { WorkspaceRuntime } = require("./workspace-runtime") as typeof import("./workspace-runtime");
    return new WorkspaceRuntime(given);
  });

/**
 * A runtime's providers and model from one resolved provider (the CLI's flags and `DOWNCITY_*`): its profile is the
 * only one, its model and context window the default of every run.
 */
export function singleProvider(provider: ResolvedProvider): Pick<WorkspaceRuntimeOptions, "providers" | "model"> {
  const model = {
    provider: provider.profile.id,
    model: provider.model,
    ...(provider.contextWindow ? { contextWindow: provider.contextWindow } : {}),
  };
  return { providers: () => [provider.profile], model: () => model };
}
