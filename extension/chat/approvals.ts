import type { ApprovalDecision } from "../../core/protocol";
import type { RuntimeApprovalRequest } from "../../core/runtime/types";

/** What the tools engineer's approver asks first; `undefined` = no visible chat shows that session, ask elsewhere. */
export interface ChatApprovalSink {
  request(req: RuntimeApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> | undefined;
}

interface Pending {
  resolve(decision: ApprovalDecision): void;
}

/** Open approval prompts shown in chats, answered by the webview's Approve / Deny. */
export class ChatApprovals implements ChatApprovalSink {
  private readonly pending = new Map<string, Pending>();

  /** @param shows whether a visible view shows this session */
  constructor(private readonly shows: (sessionId: string, agentId: string) => boolean) {}

  request(req: RuntimeApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> | undefined {
    if (signal.aborted || !this.shows(req.sessionId, req.agentId)) return undefined;
    const key = keyOf(req.sessionId, req.toolCallId);
    return new Promise<ApprovalDecision>((resolve) => {
      const done = (decision: ApprovalDecision) => {
        signal.removeEventListener("abort", onAbort);
        this.pending.delete(key);
        resolve(decision);
      };
      // A cancelled run answers its own prompt so nothing waits forever.
      const onAbort = () => done({ approved: false, reason: "cancelled" });
      signal.addEventListener("abort", onAbort, { once: true });
      this.pending.set(key, { resolve: done });
    });
  }

  /** The user's answer; false when nothing waits for it (already answered, run ended). */
  answer(sessionId: string, toolCallId: string, decision: ApprovalDecision): boolean {
    const entry = this.pending.get(keyOf(sessionId, toolCallId));
    if (!entry) return false;
    entry.resolve(decision);
    return true;
  }

  isPending(sessionId: string, toolCallId: string): boolean {
    return this.pending.has(keyOf(sessionId, toolCallId));
  }
}

const keyOf = (sessionId: string, toolCallId: string) => `${sessionId}\u0000${toolCallId}`;
