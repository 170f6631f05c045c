import type * as vscode from "vscode";
import { MovedChat, SessionRef } from "../../core/protocol";

/**
 * The session the sidebar chat shows, kept by the host: a window reload restores it even
 * when VS Code had not yet persisted the webview's own saved state. Also the conversation
 * the sidebar handed to an editor tab, so its placeholder survives the reload as the tab does.
 */
export interface ShownMemory {
  get(): SessionRef | undefined;
  set(ref: SessionRef | undefined): void;
  moved(): MovedChat | undefined;
  setMoved(moved: MovedChat | undefined): void;
}

export const SHOWN_SESSION_KEY = "downcity.chat.shownSession";
export const MOVED_SESSION_KEY = "downcity.chat.movedSession";

/** Kept in the workspace's state (one per window); what is read back is parsed, never trusted. */
export function workspaceShownMemory(state: vscode.Memento): ShownMemory {
  return {
    get: () => {
      const parsed = SessionRef.safeParse(state.get(SHOWN_SESSION_KEY));
      return parsed.success ? parsed.data : undefined;
    },
    set: (ref) => void state.update(SHOWN_SESSION_KEY, ref),
    moved: () => {
      const parsed = MovedChat.safeParse(state.get(MOVED_SESSION_KEY));
      return parsed.success ? parsed.data : undefined;
    },
    setMoved: (moved) => void state.update(MOVED_SESSION_KEY, moved),
  };
}
