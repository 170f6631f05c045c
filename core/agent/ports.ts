import type { ContentBlock } from "../protocol";
import type { Session } from "../session";

/** The draft of the assistant message being streamed (DESIGN §3). */
export interface Draft {
  draftId: string;
  blocks: readonly ContentBlock[];
  provider?: string;
  model?: string;
}

/** What the loop needs from the session store; the durable store implements it. */
export interface SessionStoragePort {
  writeDraft(session: Session, draft: Draft): Promise<void>;
  discardDraft(session: Session): Promise<void>;
  /** Creates the segment for 1..throughSeq, rewrites Active, then drops the prefix from memory. */
  closePrefix(session: Session, throughSeq: number, summaryText: string): Promise<void>;
  flush(session: Session): Promise<void>;
}
