// The readable transcript of a session: `sessions show` / `export` in the CLI and Export Session in VS Code.
import {
  CompactionEndData,
  contextTokens,
  type AssistantMessageData,
  type ContentBlock,
  type SessionEvent,
  type ToolResultData,
  type UserMessageData,
} from "../protocol";
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

const tokens = (n: number, window?: number) =>
  `${n.toLocaleString("en-US")}${window ? ` of ${window.toLocaleString("en-US")} tokens (${Math.round((n / window) * 100)} %)` : " tokens"}`;

/** Real usage (tokens) of the first answer after each `compaction/end` of `events`, by its seq. */
export function usageAfterCompactions(events: readonly SessionEvent[]): Map<number, number> {
  const after = new Map<number, number>();
  let next: number | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    const usage = event.type === "assistant/message" ? (event.data as AssistantMessageData).usage : undefined;
    if (usage) next = contextTokens(usage);
    else if (event.type === "compaction/end" && next !== undefined) after.set(event.seq, next);
  }
  return after;
}

/** Where a compaction happened: what it closed, why not, its summary, the usage before and after. */
function compactionMarkdown(event: SessionEvent, usageAfter: number | undefined): string {
  const parsed = CompactionEndData.safeParse(event.data);
  if (!parsed.success) return `*compaction (#${event.seq})*`;
  const d = parsed.data;
  const closed = d.closed ?? 0;
  const what =
    closed > 0
      ? `closed ${closed} message${closed === 1 ? "" : "s"}${d.throughSeq ? ` (history through #${d.throughSeq})` : ""}`
      : `nothing closed${d.note ? `: ${d.note}` : ""}`;
  const usage = [
    d.usageBefore !== undefined ? `usage before ${tokens(d.usageBefore, d.contextWindow)}` : "",
    usageAfter !== undefined ? `after ${tokens(usageAfter, d.contextWindow)}` : "",
  ].filter(Boolean);
  const head = `*compaction (#${event.seq}, ${d.reason}${d.deep ? ", deep" : ""}) — ${what}${d.folded ? `; folded ${d.folded}` : ""}${usage.length ? `; ${usage.join(", ")}` : ""}*`;
  return d.summary ? `${head}\n\n> ${d.summary.replace(/\n/g, "\n> ")}` : head;
}

/**
 * One event as Markdown for `sessions show` / `export --format md`; undefined for log-only
 * events. `usageAfter` (from `usageAfterCompactions`) completes a compaction's line.
 */
export function eventMarkdown(event: SessionEvent, usageAfter?: ReadonlyMap<number, number>): string | undefined {
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
    case "compaction/end":
      return compactionMarkdown(event, usageAfter?.get(event.seq));
    case "compaction/error": {
      const data = event.data as { reason?: string; message?: string };
      return `*compaction failed (#${event.seq}, ${data.reason ?? "?"}): ${data.message ?? ""}*`;
    }
    case "session/title":
      return `*title: ${(event.data as { title: string }).title}*`;
    case "turn/end": {
      const data = event.data as { reason: string; error?: string };
      return data.reason === "completed"
        ? undefined
        : `*turn ended: ${data.reason}${data.error ? ` — ${data.error}` : ""}*`;
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
  const usageAfter = usageAfterCompactions(events);
  for (const event of events) {
    const text = eventMarkdown(event, usageAfter);
    if (text) parts.push(text);
  }
  return `${parts.join("\n\n")}\n`;
}
