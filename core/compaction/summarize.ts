import type { ContentBlock, GenerateOptions, Message, SessionEvent } from "../protocol";
import { deriveEventMessage } from "../session";
import type { LlmClient } from "../llm/types";

/** Renders messages as plain text for the summariser (images and signatures left out). */
export function renderTranscript(messages: readonly Message[]): string {
  const out: string[] = [];
  const block = (b: ContentBlock): string => {
    switch (b.type) {
      case "text":
        return b.text;
      case "reasoning":
        return `(thinking) ${b.text}`;
      case "image":
        return "[image]";
      case "file":
        return `[file ${b.uri}]`;
      case "tool-call":
        return `[tool call ${b.name} ${JSON.stringify(b.arguments)}]`;
      case "tool-result":
        return `[tool result ${b.toolName}${b.isError ? " (error)" : ""}]\n${b.content.map((p) => (p.type === "text" ? p.text : "[image]")).join("\n")}`;
    }
  };
  for (const m of messages)
    out.push(`## ${m.role}${m.interrupted ? " (interrupted)" : ""}\n${m.content.map(block).join("\n")}`);
  return out.join("\n\n");
}

export function transcriptOf(events: readonly SessionEvent[]): string {
  return renderTranscript(events.map(deriveEventMessage));
}

/** Cuts text into pieces of at most `limit` characters, preferring line breaks. */
export function chunkText(text: string, limit: number): string[] {
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + limit, text.length);
    if (end < text.length) {
      const newline = text.lastIndexOf("\n", end);
      if (newline > start + limit / 2) end = newline + 1;
    }
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}

const SUMMARY_SYSTEM = `You maintain the cumulative summary of a long coding session between a user and a coding agent, so the agent can continue the work without the original messages.
Write a faithful, dense summary in Markdown with these sections: Goal, Decisions and constraints, Work done (files changed, commands run, results), Open questions and next steps, Important facts (paths, names, errors, values quoted exactly).
Merge the previous summary with the new part: keep every fact that still matters, drop nothing the user asked for, never invent. Reply with the summary only.`;

export interface SummariseOptions {
  llm: LlmClient;
  provider: string;
  model: string;
  maxTokens: number;
  chunkChars: number;
  signal?: AbortSignal;
}

/**
 * Merges `previous` (the cumulative summary so far) with `transcript`, chunk by chunk,
 * so one huge message cannot exceed the summariser's own context.
 */
export async function summarise(
  previous: string | undefined,
  transcript: string,
  options: SummariseOptions,
): Promise<string> {
  let summary = previous ?? "";
  const chunks = chunkText(transcript, options.chunkChars);
  for (const [i, chunk] of chunks.entries()) {
    const request: GenerateOptions = {
      provider: options.provider,
      model: options.model,
      system: SUMMARY_SYSTEM,
      maxTokens: options.maxTokens,
      messages: [
        {
          role: "user",
          content: [
            {
              type: "text",
              text: `<previous-summary>\n${summary || "(none yet)"}\n</previous-summary>\n\n<new-part index="${i + 1}" of="${chunks.length}">\n${chunk}\n</new-part>\n\nWrite the updated cumulative summary.`,
            },
          ],
        },
      ],
    };
    if (options.signal) request.signal = options.signal;
    let text = "";
    for await (const part of options.llm.stream(request)) if (part.type === "text-delta") text += part.text;
    text = text.trim();
    if (!text) throw new Error("the summariser returned an empty summary");
    summary = text;
  }
  return summary;
}
