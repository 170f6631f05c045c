import type { AssistantMessageData, Message, SessionEvent, ToolResultData, UserMessageData } from "../protocol";

/**
 * Projects one Surface event into a provider-neutral message. The message shares the
 * event's frozen content arrays: nothing is copied.
 */
export function deriveEventMessage(event: SessionEvent): Message {
  const id = String(event.seq);
  switch (event.type) {
    case "user/message": {
      const data = event.data as UserMessageData;
      return { role: "user", id, content: data.content };
    }
    case "assistant/message": {
      const data = event.data as AssistantMessageData;
      const message: Message = { role: "assistant", id, content: data.content };
      if (data.interrupted) message.interrupted = true;
      if (data.usage) message.usage = data.usage;
      if (data.finishReason) message.finishReason = data.finishReason;
      if (data.replayState) message.replayState = data.replayState;
      if (data.provider) message.provider = data.provider;
      if (data.model) message.model = data.model;
      return message;
    }
    case "tool/result": {
      const data = event.data as ToolResultData;
      return {
        role: "user",
        id,
        content: [
          {
            type: "tool-result",
            toolCallId: data.toolCallId,
            toolName: data.toolName,
            content: data.content,
            ...(data.isError ? { isError: true } : {}),
          },
        ],
      };
    }
    default:
      throw new Error(`${event.type} is not a Surface event`);
  }
}

/** The cumulative summary of closed segments, as the first message of the model context. */
export function summaryMessage(summary: { throughSeq: number; text: string }): Message {
  return {
    role: "user",
    id: `summary-${summary.throughSeq}`,
    content: [
      {
        type: "text",
        text: `<conversation-summary through-seq="${summary.throughSeq}">\n${summary.text}\n</conversation-summary>`,
      },
    ],
  };
}
