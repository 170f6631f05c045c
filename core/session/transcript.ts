// Moved from cli/render.ts so the CLI and the VS Code host export one way (cli/ switches to it).
import type { AssistantMessageData, ContentBlock, SessionEvent, ToolResultData, UserMessageData } from "../protocol";
import type { HistoryPage } from "./persistence";

const blockText = (b: ContentBlock): string => {
  switch (b.type) {
    case "text":
      return b.text;
    case "reasoning":
      return `> (thinking) ${b.text.replace(/\n/g, "\n> ")}`;
    case "image":
      return `[image ${b.mediaType}]`;
    case "file":
      return `[file ${b.uri}]`;
    case "tool-call":
      return `→ ${b.name}(${JSON.stringify(b.arguments)})`;
    case "tool-result":
      return `← ${b.toolName}: ${b.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n")}`;
  }
};

/** One event as Markdown for `sessions show` / `export --format md`; undefined for log-only events. */
export function eventMarkdown(event: SessionEvent): string | undefined {
  switch (event.type) {
    case "user/message": {
      const data = event.data as UserMessageData;
      return `### user (#${event.seq})${data.origin && data.origin !== "human" ? ` — ${data.origin}` : ""}\n\n${data.content.map(blockText).join("\n\n")}`;
    }
    case "assistant/message": {
      const data = event.data as AssistantMessageData;
      const flags = [data.interrupted ? "interrupted" : "", data.model ?? ""].filter(Boolean).join(", ");
      return `### assistant (#${event.seq})${flags ? ` — ${flags}` : ""}\n\n${data.content.map(blockText).join("\n\n")}`;
    }
    case "tool/result": {
      const data = event.data as ToolResultData;
      const flags = [data.isError ? "error" : "", data.synthetic ?? ""].filter(Boolean).join(", ");
      const body = data.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n");
      return `#### ${data.toolName} result (#${event.seq})${flags ? ` — ${flags}` : ""}\n\n\`\`\`\n${body.length > 4000 ? `${body.slice(0, 4000)}\n…` : body}\n\`\`\``;
    }
    case "session/title":
      return `*title: ${(event.data as { title: string }).title}*`;
    case "turn/end": {
      const data = event.data as { reason: string; error?: string };
      return data.reason === "completed" ? undefined : `*turn ended: ${data.reason}${data.error ? ` — ${data.error}` : ""}*`;
    }
    default:
      return undefined;
  }
}

export type TranscriptFormat = "md" | "jsonl";

/** Every event of a session, oldest first: pages back one segment at a time (one parsed per page). */
export async function wholeHistory(
  messages: (options?: { beforeSequence?: number }) => Promise<HistoryPage>,
  signal?: AbortSignal,
): Promise<SessionEvent[]> {
  const pages: SessionEvent[][] = [];
  let page = await messages();
  pages.push(page.events);
  while (page.hasOlder) {
    signal?.throwIfAborted();
    page = await messages({ beforeSequence: page.firstSeq });
    pages.push(page.events);
  }
  return pages.reverse().flat();
}

/** The export file's text: one JSON event per line, or the readable Markdown transcript. */
export function renderTranscript(events: readonly SessionEvent[], format: TranscriptFormat, title?: string): string {
  if (format === "jsonl") return events.map((e) => `${JSON.stringify(e)}\n`).join("");
  const parts = title ? [`# ${title}`] : [];
  for (const event of events) {
    const text = eventMarkdown(event);
    if (text) parts.push(text);
  }
  return `${parts.join("\n\n")}\n`;
}
