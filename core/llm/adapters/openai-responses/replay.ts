/** What the Responses adapter keeps in `replayState.data` (version 1). JSON only. */
export interface ResponsesReplayV1 {
  responseId?: string;
  model: string;
  /** One entry per reasoning block of the message, in order. */
  reasoning: Array<{
    /** textHash of the neutral reasoning text this item produced. */
    hash: string;
    id: string;
    summary: Array<{ type: "summary_text"; text: string }>;
    encrypted_content?: string;
  }>;
}
export const RESPONSES_REPLAY_VERSION = 1;
