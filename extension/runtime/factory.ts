import type { WorkspaceRuntimeApi, WorkspaceRuntimeOptions } from "../../core/runtime/types";
import { InterimRuntime } from "./interim-runtime";

export type RuntimeFactory = (options: WorkspaceRuntimeOptions) => WorkspaceRuntimeApi;

/** The core runtime of one folder. */
export const createWorkspaceRuntime: RuntimeFactory = (options) => new InterimRuntime(options);
