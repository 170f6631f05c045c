import type { AgentEvent, SessionRef } from "../../core/protocol";
import { sameRef } from "../../core/protocol";
import type { SessionChange } from "../../core/runtime";
import { LiveState } from "./live-state";
import type { ChatFolder, Disposable } from "./folders";

/** A listener for list changes of one folder's sessions (delete, archive, rename, from any window). */
export type SessionChangeListener = (folderKey: string, change: SessionChange) => void;

/** A listener for one session's agent events (what a view forwards to its webview). */
export type SessionListener = (event: AgentEvent) => void;

interface Watched {
  ref: SessionRef;
  listener: SessionListener;
  visible: () => boolean;
}

/**
 * Where the chat's events go: each folder's agent events update that folder's live state and reach the views watching
 * the session, matched by folder, agent and session id (two agents may hold the same session id); list changes reach
 * every view.
 */
export class SessionFeed {
  private readonly live = new Map<string, LiveState>();
  private readonly watchers = new Set<Watched>();
  private readonly changeListeners = new Set<SessionChangeListener>();

  /** Subscribes to one session's events; `visible` tells approvals whether this view can ask. */
  watch(ref: SessionRef, listener: SessionListener, visible: () => boolean): Disposable {
    const entry: Watched = { ref, listener, visible };
    this.watchers.add(entry);
    return { dispose: () => this.watchers.delete(entry) };
  }

  /** True when a visible view shows the session (its approval is asked there). */
  shows(ref: SessionRef): boolean {
    return [...this.watchers].some((w) => w.visible() && sameRef(w.ref, ref));
  }

  onSessionChange(listener: SessionChangeListener): Disposable {
    this.changeListeners.add(listener);
    return { dispose: () => this.changeListeners.delete(listener) };
  }

  sessionChanged(folderKey: string, change: SessionChange): void {
    for (const listener of this.changeListeners) listener(folderKey, change);
  }

  /** The session's draft, open approvals and usage, while its folder is open. */
  liveOf(ref: SessionRef) {
    return this.live.get(ref.folderKey)?.get(ref.agentId, ref.sessionId);
  }

  /** An error notice for the session's views (a run that failed to start). */
  notice(ref: SessionRef, message: string): void {
    this.dispatch(ref.folderKey, {
      type: "notice",
      sessionId: ref.sessionId,
      agentId: ref.agentId,
      level: "error",
      message,
    });
  }

  /** The folder's live state, fed by its events, kept until the returned disposable goes with the folder. */
  follow(folder: ChatFolder): Disposable {
    this.live.set(folder.key, new LiveState());
    const off = folder.runtime.onEvent((event) => this.dispatch(folder.key, event));
    return {
      dispose: () => {
        off();
        this.live.delete(folder.key);
      },
    };
  }

  clear(): void {
    this.changeListeners.clear();
    this.watchers.clear();
  }

  private dispatch(folderKey: string, event: AgentEvent): void {
    this.live.get(folderKey)?.apply(event);
    for (const w of this.watchers) {
      if (sameRef(w.ref, { folderKey, agentId: event.agentId, sessionId: event.sessionId })) w.listener(event);
    }
  }
}
