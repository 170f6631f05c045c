import { sessionKey, type AgentEvent, type AgentEventOf, type ContentBlock } from "../../core/protocol";

/** What a view restoring mid-run needs besides the log: the draft, open approvals, last usage, running. */
export interface SessionLive {
  running: boolean;
  draft?: { draftId: string; blocks: ContentBlock[] };
  pending: Map<string, AgentEventOf<"approval-requested">>;
  usage?: AgentEventOf<"usage">;
}

/**
 * Folds a folder's agent events into per-session live state, so opening or catching up
 * a view costs a map lookup instead of replaying anything. O(1) per event.
 */
export class LiveState {
  private readonly sessions = new Map<string, SessionLive>();

  /** Keyed by agent and session: two agents may hold the same session id. */
  get(agentId: string, sessionId: string): SessionLive | undefined {
    return this.sessions.get(sessionKey({ agentId, sessionId }));
  }

  apply(event: AgentEvent): void {
    const key = sessionKey(event);
    const live: SessionLive = this.sessions.get(key) ?? { running: false, pending: new Map() };
    this.sessions.set(key, live);
    switch (event.type) {
      case "turn-started":
        live.running = true;
        break;
      case "turn-ended":
        live.running = false;
        live.draft = undefined;
        live.pending.clear();
        break;
      case "draft":
        live.draft = { draftId: event.draftId, blocks: event.blocks };
        break;
      case "draft-cleared":
        if (live.draft?.draftId === event.draftId) live.draft = undefined;
        break;
      case "approval-requested":
        live.pending.set(event.toolCallId, event);
        break;
      case "approval-resolved":
        live.pending.delete(event.toolCallId);
        break;
      case "usage":
        live.usage = event;
        break;
      default:
        break;
    }
  }

  forget(agentId: string, sessionId: string): void {
    this.sessions.delete(sessionKey({ agentId, sessionId }));
  }
}
