import { sameRef, type ChatConfig, type ChatHostEvent, type MovedChat, type SessionEvent } from "../core/protocol";
import type { ChatCore } from "./chat-state";
import type { ResolvedAttachment } from "../core/protocol";

/** What applying the host's events needs of the app beyond its core. */
export interface HostEventsApp extends ChatCore {
  setConfig(config: ChatConfig): void;
  close(message: string | undefined, moved?: MovedChat): void;
  appendEvent(event: SessionEvent): void;
  attach(attachments: ResolvedAttachment[]): void;
  askConnect(): void;
  loadRules(): Promise<void>;
  /** Draft deltas are coalesced: the last one is applied at the next frame (or before the next other event). */
  setPendingDraft(apply: () => void): void;
  flushDraft(): void;
  /** Renders at the next animation frame (and saves the view's state when the log changed). */
  schedule(): void;
  /** Focuses the composer's box (an attachment arrived from the editor). */
  focusComposer(): void;
}

/** Applies one event the host pushed (rpc.ts has checked its shape). */
export function applyHostEvent(app: HostEventsApp, event: ChatHostEvent): void {
  const { state } = app;
  switch (event.type) {
    case "session-switched":
      app.show(event.snapshot);
      return;
    case "config": {
      // Only what changed arrives; before hello there is nothing to apply it to.
      if (!state.config) return;
      const { restricted, ...rest } = event.changes;
      const next: ChatConfig = { ...state.config, ...rest };
      if (restricted === null) delete next.restricted;
      else if (restricted !== undefined) next.restricted = restricted;
      app.setConfig(next);
      return;
    }
    case "sessions-changed":
      state.sessions = undefined;
      return;
    case "session-closed":
      if (state.snapshot && sameRef(event.ref, state.snapshot.ref)) app.close(event.message);
      return;
    case "connect":
      app.askConnect();
      return;
    case "ping":
      void app.call("alive", {});
      return;
    case "attach":
      app.attach(event.attachments);
      app.focusComposer();
      return;
    case "rules-changed":
      if (state.snapshot?.ref.folderKey === event.folderKey) void app.loadRules();
      return;
    case "session-moved":
      if (state.snapshot && sameRef(event.moved.ref, state.snapshot.ref)) app.close(undefined, event.moved);
      // The placeholder's session was renamed (from the tree, the tab, another window): it names the new title.
      else if (!state.snapshot && state.moved && sameRef(event.moved.ref, state.moved.ref)) {
        state.moved = event.moved;
        app.refresh();
      }
      return;
    case "model":
      if (state.snapshot && sameRef(event.ref, state.snapshot.ref)) state.model = event.model;
      app.refresh();
      return;
    case "agent": {
      const e = event.event;
      // Folder, agent and session: two agents may hold the same session id (refs.ts).
      const ref = { folderKey: event.folderKey, agentId: e.agentId, sessionId: e.sessionId };
      if (!state.snapshot || !sameRef(ref, state.snapshot.ref)) return;
      if (e.type === "draft") {
        // Coalesced: a burst of deltas costs one render per animation frame.
        app.setPendingDraft(() => app.conversation.setDraft(e.draftId, e.blocks));
        app.schedule();
        return;
      }
      app.flushDraft();
      if (e.type === "session-event") {
        app.appendEvent(e.event);
      } else {
        if (e.type === "turn-started") state.running = true;
        if (e.type === "turn-ended") {
          state.running = false;
          void app.loadRules();
        }
        if (e.type === "usage") state.usage = e;
        if (e.type === "compaction-started" && state.usage?.ratio !== undefined)
          app.conversation.compactedAt = state.usage.ratio;
        app.conversation.applyAgent(e);
      }
      app.schedule();
      return;
    }
  }
}
