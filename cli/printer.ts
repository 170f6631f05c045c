import type { AgentEvent, AssistantMessageData, ContentBlock, RequestErrorData, ToolDetails } from "../core/protocol";
import type { Output } from "./output";

const BY: Record<string, string> = {
  policy: "the approval policy",
  user: "the user",
  "restricted-mode": "Restricted Mode",
};

function detailsNote(details: ToolDetails | undefined): string {
  if (!details) return "";
  if (details.kind === "edit") return ` ${details.path} (+${details.added} −${details.removed})`;
  return details.exitCode !== undefined && details.exitCode !== null
    ? ` (exit code ${details.exitCode})`
    : details.signal
      ? ` (${details.signal})`
      : "";
}

/**
 * The human view of a run: the answer streams to stdout, reasoning dimmed to stderr and
 * set apart from the answer, one line per tool call and one for its outcome (done,
 * failed with the error's first line, refused and by whom), notices in yellow.
 */
export function createPrinter(output: Output): (event: AgentEvent) => void {
  let draftId: string | undefined;
  let printed: number[] = [];
  let inReasoning = false;
  let atLineStart = true;
  const reasons = new Map<string, string>();

  const out = (text: string) => {
    if (inReasoning) {
      // The answer starts on its own line, apart from what the model thought.
      output.err("\n\n");
      inReasoning = false;
    }
    output.out(text);
    atLineStart = text.endsWith("\n");
  };
  const think = (text: string) => {
    if (!inReasoning) {
      if (!atLineStart) output.out("\n");
      output.err(output.dim("thinking: "));
      inReasoning = true;
    }
    output.err(output.dim(text));
  };
  const line = (text: string) => {
    if (inReasoning) {
      output.err("\n");
      inReasoning = false;
    }
    if (!atLineStart) output.out("\n");
    atLineStart = true;
    output.err(text);
  };
  /** Prints what `blocks` has beyond what was printed of the same draft. */
  const show = (blocks: readonly ContentBlock[]) => {
    blocks.forEach((block, i) => {
      if (block.type !== "text" && block.type !== "reasoning") return;
      const done = printed[i] ?? 0;
      if (block.text.length <= done) return;
      const more = block.text.slice(done);
      printed[i] = block.text.length;
      if (block.type === "text") out(more);
      else think(more);
    });
  };

  return (event) => {
    switch (event.type) {
      case "draft":
        if (event.draftId !== draftId) {
          draftId = event.draftId;
          printed = [];
        }
        show(event.blocks);
        break;
      case "session-event":
        if (event.event.type === "assistant/message") {
          const data = event.event.data as AssistantMessageData & { draftId?: string };
          if (data.draftId !== draftId) printed = [];
          show(data.content);
          draftId = undefined;
          printed = [];
        } else if (event.event.type === "request/error") {
          draftId = undefined;
          printed = [];
          const data = event.event.data as RequestErrorData;
          if (data.retryInMs !== undefined && data.retryInMs > 0) {
            line(
              output.yellow(
                `! ${data.kind} error (${data.message}${data.server ? `, ${data.server}` : ""}); retrying in ${Math.round(data.retryInMs / 100) / 10} s\n`,
              ),
            );
          }
        }
        break;
      case "tool-started":
        line(output.dim(`→ ${event.name}\n`));
        break;
      case "approval-resolved":
        if (event.decision === "denied" && event.reason) reasons.set(event.toolCallId, event.reason);
        break;
      case "tool-finished": {
        const reason = reasons.get(event.toolCallId);
        reasons.delete(event.toolCallId);
        if (event.outcome === "done") line(output.dim(`  ✓ ${event.name} done${detailsNote(event.details)}\n`));
        else if (event.outcome === "refused")
          line(
            output.yellow(
              `  ✗ ${event.name} refused by ${BY[event.refusedBy ?? "policy"]}${reason ? `: ${reason}` : ""}\n`,
            ),
          );
        else if (event.outcome === "cancelled") line(output.yellow(`  ✗ ${event.name} cancelled\n`));
        else line(output.red(`  ✗ ${event.name} failed${event.message ? `: ${event.message}` : ""}\n`));
        break;
      }
      case "notice":
        line(output.yellow(`! ${event.message}\n`));
        break;
      default:
        break;
    }
  };
}
