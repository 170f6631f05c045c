import type { ToolOutput } from "./types";

/** Share of a capped text kept from its start; the rest comes from its end (errors and summaries live there). */
const HEAD_SHARE = 0.75;
const NOTE_ALLOWANCE = 160;

export interface CapResult {
  text: string;
  truncated: boolean;
}

/**
 * Cuts `text` to at most about `maxChars` characters, keeping its head and tail and
 * putting a note in the middle that says how much was left out. Never splits a
 * surrogate pair. Texts within the cap are returned unchanged.
 */
export function capText(text: string, maxChars: number): CapResult {
  if (text.length <= maxChars) return { text, truncated: false };
  // Leave room for the note so the result stays close to the cap.
  const budget = Math.max(0, maxChars - NOTE_ALLOWANCE);
  let headEnd = safeBoundary(text, Math.floor(budget * HEAD_SHARE));
  let tailStart = safeBoundary(text, text.length - (budget - headEnd));
  if (tailStart < headEnd) tailStart = headEnd;
  const omitted = tailStart - headEnd;
  const note =
    `\n\n[… output truncated: ${omitted.toLocaleString("en-US")} of ${text.length.toLocaleString("en-US")} characters omitted; ` +
    `showing the first ${headEnd.toLocaleString("en-US")} and the last ${(text.length - tailStart).toLocaleString("en-US")} …]\n\n`;
  return { text: text.slice(0, headEnd) + note + text.slice(tailStart), truncated: true };
}

/** Moves an index off the low half of a surrogate pair so slicing there keeps characters whole. */
function safeBoundary(text: string, index: number): number {
  const i = Math.min(Math.max(index, 0), text.length);
  if (i > 0 && i < text.length) {
    const code = text.charCodeAt(i);
    if (code >= 0xdc00 && code <= 0xdfff) return i - 1;
  }
  return i;
}

/**
 * Applies the cap to every text part of a tool output, sharing `maxChars` among them in
 * proportion to their length. Image parts are left alone.
 */
export function capOutput(output: ToolOutput, maxChars: number): ToolOutput {
  let total = 0;
  for (const part of output.content) if (part.type === "text") total += part.text.length;
  if (total <= maxChars) return output;
  let truncated = false;
  const content = output.content.map((part) => {
    if (part.type !== "text") return part;
    const share = Math.floor((maxChars * part.text.length) / total);
    const capped = capText(part.text, share);
    truncated ||= capped.truncated;
    return { ...part, text: capped.text };
  });
  const result: ToolOutput = { ...output, content };
  if (truncated) result.truncated = true;
  return result;
}
