import type { SessionChange } from "../../core/session";
import { WorkspaceRuntime } from "../../core/runtime/workspace-runtime";
import type { WorkspaceRuntimeApi, WorkspaceRuntimeOptions } from "../../core/runtime/types";
import type { Unsubscribe } from "../../core/util/emitter";

/** The core runtime plus its store's change feed, which the Sessions tree follows. */
export interface HostRuntime extends WorkspaceRuntimeApi {
  onChange(listener: (change: SessionChange) => void): Unsubscribe;
}

export type RuntimeFactory = (options: WorkspaceRuntimeOptions) => HostRuntime;

class FolderRuntimeImpl extends WorkspaceRuntime implements HostRuntime {
  onChange(listener: (change: SessionChange) => void): Unsubscribe {
    return this.sessions.onChange(listener);
  }
}

/** The core runtime of one folder. */
export const createWorkspaceRuntime: RuntimeFactory = (options) => new FolderRuntimeImpl(options);
