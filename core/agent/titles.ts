import type { ContentBlock, GenerateOptions } from "../protocol";
import type { Session } from "../session";
import { normaliseTitle } from "../session";
import type { LlmClient } from "../llm/types";

/** What the user typed; an attachment counts by its label only (a title is never a file's first line). */
function textOf(content: readonly ContentBlock[]): string {
  const typed = content.flatMap((b) => (b.type === "text" && !b.attachment ? [b.text] : [])).join(" ");
  const labels = content.flatMap((b) => (b.type === "text" && b.attachment ? [b.attachment.label] : []));
  return typed.trim() || !labels.length ? typed : labels.join(", ");
}

/** A deterministic title from the first user message: its first sentence, one line. */
export function fallbackTitle(content: readonly ContentBlock[]): string | undefined {
  const text = textOf(content).trim();
  if (!text) return undefined;
  const firstLine = text.split(/\n/)[0]!;
  const sentence = firstLine.match(/^(.{12,}?[.!?])(\s|$)/)?.[1] ?? firstLine;
  return normaliseTitle(sentence, 60);
}

/** Appends the fallback title for the first user message, unless the session has a title. */
export function ensureFallbackTitle(session: Session, userSeq: number, content: readonly ContentBlock[]): void {
  if (session.title.title !== undefined) return;
  const title = fallbackTitle(content);
  if (title) session.append("session/title", { title, messageSeqs: [userSeq], source: { kind: "fallback" } });
}

/**
 * Asks the model for a short title and appends it, unless the user has renamed the
 * session meanwhile (a user title pins it). Failures leave the fallback in place.
 */
export async function writeModelTitle(
  session: Session,
  llm: LlmClient,
  call: Pick<GenerateOptions, "provider" | "model">,
  userSeq: number,
  content: readonly ContentBlock[],
  signal: AbortSignal,
): Promise<void> {
  const request: GenerateOptions = {
    ...call,
    maxTokens: 40,
    signal,
    system:
      "Write a short title (at most 6 words, no quotes, no trailing period) for a coding session that starts with the user's message below. Reply with the title only.",
    messages: [{ role: "user", content: [{ type: "text", text: textOf(content).slice(0, 4000) }] }],
  };
  let text = "";
  for await (const chunk of llm.stream(request)) if (chunk.type === "text-delta") text += chunk.text;
  const title = normaliseTitle(text.replace(/^["'#\s]+|["'\s.]+$/g, ""), 60);
  if (!title || session.title.pinned || session.readOnly) return;
  session.append("session/title", { title, messageSeqs: [userSeq], source: { kind: "llm" } });
}
