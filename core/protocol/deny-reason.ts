/**
 * A denial's reason is typed by the user (the chat card, the diff's Reject, a notification) or read
 * back from a log under .downcity/ (untrusted): it becomes the refused call's result for the model
 * and a line on the card. One cleaning for every path, so the log, the model and the card agree.
 */

/** The most a reason keeps, in characters (a sentence or two of feedback, not a document). */
export const DENY_REASON_MAX = 500;

// C0/C1 controls and line/paragraph separators become spaces; bidirectional overrides and
// zero-width marks go, so a reason cannot reorder or hide what the card or the model reads.
const SPACE_LIKE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * The reason as one line of plain text, at most DENY_REASON_MAX characters (cut with "…"),
 * or undefined when nothing is left. Markup is kept as text: every surface shows it as text.
 */
export function denyReason(text: string | undefined): string | undefined {
  if (typeof text !== "string") return undefined;
  const line = text.replace(INVISIBLE, "").replace(SPACE_LIKE, " ").replace(/\s+/g, " ").trim();
  if (!line) return undefined;
  const chars = Array.from(line); // code points: a cut never splits a surrogate pair
  return chars.length <= DENY_REASON_MAX
    ? line
    : `${chars
        .slice(0, DENY_REASON_MAX - 1)
        .join("")
        .trimEnd()}…`;
}
