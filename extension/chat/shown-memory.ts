import type * as vscode from "vscode";
import { SessionRef } from "../../core/protocol";

/**
 * The session the sidebar chat shows, kept by the host: a window reload restores it even
 * when VS Code had not yet persisted the webview's own saved state.
 */
export interface ShownMemory {
  get(): SessionRef | undefined;
  set(ref: SessionRef | undefined): void;
}

export const SHOWN_SESSION_KEY = "downcity.chat.shownSession";

/** Kept in the workspace's state (one per window); what is read back is parsed, never trusted. */
export function workspaceShownMemory(state: vscode.Memento): ShownMemory {
  return {
    get: () => {
      const parsed = SessionRef.safeParse(state.get(SHOWN_SESSION_KEY));
      return parsed.success ? parsed.data : undefined;
    },
    set: (ref) => void state.update(SHOWN_SESSION_KEY, ref),
  };
}
