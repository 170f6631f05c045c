import type { SessionRef } from "../../core/protocol";
import type { PendingDecisions } from "./decisions";

/**
 * What the approver asks the chat: whether a visible view shows the session (its card then asks; when none does, a
 * notification asks too), and the window's one set of open decisions, which the card's Approve / Allow for this
 * session / Deny answer. Declared here, below both the chat and the tools, since both use it.
 */
export interface ChatApprovalSink {
  readonly decisions: PendingDecisions;
  shows(ref: SessionRef): boolean;
}
