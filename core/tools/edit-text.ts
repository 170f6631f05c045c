import { structuredPatch } from "diff";
import type { EditDetails } from "../protocol";
import { applyEdits, type AppliedEdit, type TextEdit } from "./edits";
import { plural } from "./text";

/*
 * The host-neutral half of edit_file and write_file: given the file's current text,
 * compute the new text (line endings and BOM kept), the model-facing summary and the
 * unified diff. Hosts only read and write (Node: the file system; VS Code: the editor
 * buffer), so both give the same results and the same error messages.
 */

const BOM = "\uFEFF";
/** Above this many changed lines the diff is not computed (Myers' cost grows with N × D). */
const MAX_EDIT_LINES = 5_000;

const lineCount = (s: string) => (s === "" ? 0 : s.split("\n").length - (s.endsWith("\n") ? 1 : 0));

export interface PlannedEdit {
  /** The full new text, in the file's own line endings and with its BOM, ready to write. */
  text: string;
  applied: AppliedEdit[];
  /** What the model is told on success. */
  summary: string;
  details: EditDetails;
}

/** Applies `edits` to `original` (the decoded file text) or throws the ToolError the model sees. */
export function planEdit(original: string, edits: readonly TextEdit[], shownPath: string): PlannedEdit {
  const bom = original.startsWith(BOM);
  const body = bom ? original.slice(1) : original;
  // Models write "\n"; a CRLF file is edited in LF form and written back as CRLF.
  const crlf = isPureCrlf(body) && !edits.some((e) => e.oldText.includes("\r"));
  const toLf = (s: string) => (crlf ? s.replace(/\r\n/g, "\n") : s);
  const lfEdits: TextEdit[] = edits.map((e) => ({ ...e, oldText: toLf(e.oldText), newText: toLf(e.newText) }));
  const before = toLf(body);
  const { text, applied } = applyEdits(before, lfEdits, shownPath);
  const updated = (bom ? BOM : "") + (crlf ? text.replace(/\n/g, "\r\n") : text);
  const lines = applied
    .map((a) => `  edit ${a.edit}: line ${a.line}${a.replacements > 1 ? ` (${a.replacements} replacements)` : ""}`)
    .join("\n");
  return {
    text: updated,
    applied,
    summary: `edited ${shownPath}: applied ${plural(applied.length, "edit")}\n${lines}`,
    details: { kind: "edit", path: shownPath, ...unifiedDiff(shownPath, before, text) },
  };
}

/** The details of replacing `before` (undefined: a new file) with `content`. */
export function writeDetails(shownPath: string, before: string | undefined, content: string): EditDetails {
  const strip = (s: string) => (s.startsWith(BOM) ? s.slice(1) : s).replace(/\r\n/g, "\n");
  return {
    kind: "edit",
    path: shownPath,
    ...unifiedDiff(shownPath, before === undefined ? "" : strip(before), strip(content)),
    ...(before === undefined ? { newFile: true } : {}),
  };
}

/** A unified diff (3 lines of context) with the lines added and removed. */
export function unifiedDiff(
  shownPath: string,
  before: string,
  after: string,
): { diff: string; added: number; removed: number } {
  // A bounded diff: a rewrite of a huge file is reported by line counts, not computed line by line.
  const patch = structuredPatch(`a/${shownPath}`, `b/${shownPath}`, before, after, undefined, undefined, {
    context: 3,
    maxEditLength: MAX_EDIT_LINES,
  });
  if (!patch)
    return {
      diff: `(diff omitted: more than ${MAX_EDIT_LINES} lines changed)\n`,
      added: lineCount(after),
      removed: lineCount(before),
    };
  let added = 0;
  let removed = 0;
  const out = [`--- a/${shownPath}`, `+++ b/${shownPath}`];
  for (const hunk of patch.hunks) {
    out.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
      out.push(line);
    }
  }
  return { diff: patch.hunks.length > 0 ? `${out.join("\n")}\n` : "", added, removed };
}

/** Every line break is CRLF (a mixed file is edited as it is). */
export function isPureCrlf(text: string): boolean {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1;
  return crlf > 0 && crlf === lf;
}
