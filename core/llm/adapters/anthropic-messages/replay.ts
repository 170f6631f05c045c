/** What the Anthropic adapter keeps in `replayState.data` (version 1). JSON only. */
export interface AnthropicReplayV1 {
  messageId?: string;
  model: string;
  /** One entry per reasoning block of the message, in order. */
  reasoning: Array<{
    /** textHash of the thinking text the signature covers. */
    hash: string;
    signature?: string;
    /** Opaque `data` of a redacted_thinking block. */
    redacted?: string;
  }>;
}
export const ANTHROPIC_REPLAY_VERSION = 1;
