import { PendingDecisions } from "../approval/decisions";

/**
 * What the approver asks the chat: whether a visible view shows the session (its card
 * then asks; when none does, a notification asks too), and the window's one set of
 * open decisions, which the card's Approve / Allow for this session / Deny answer.
 */
export interface ChatApprovalSink {
  readonly decisions: PendingDecisions;
  shows(folderKey: string, agentId: string, sessionId: string): boolean;
}

export class ChatApprovals implements ChatApprovalSink {
  constructor(
    readonly decisions: PendingDecisions,
    private readonly visible: (folderKey: string, agentId: string, sessionId: string) => boolean,
  ) {}

  shows(folderKey: string, agentId: string, sessionId: string): boolean {
    return this.visible(folderKey, agentId, sessionId);
  }
}
