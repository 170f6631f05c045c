import { ToolError } from "./errors";

export interface TextEdit {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

export interface AppliedEdit {
  /** 1-based index of the edit in the request. */
  edit: number;
  /** 1-based line of the first replacement, in the text as it was when this edit ran. */
  line: number;
  replacements: number;
}

/**
 * Applies exact search/replace edits in order, each to the result of the previous one.
 * Each `oldText` must occur exactly once unless `replaceAll`; otherwise a ToolError says
 * which edit failed and how many matches it had, and nothing is applied (the caller
 * writes only the returned text). Pure, so editor-backed hosts share the same rules.
 */
export function applyEdits(
  text: string,
  edits: readonly TextEdit[],
  label: string,
): { text: string; applied: AppliedEdit[] } {
  let current = text;
  const applied: AppliedEdit[] = [];
  edits.forEach((edit, i) => {
    const which = edits.length === 1 ? "edit" : `edit ${i + 1} of ${edits.length}`;
    if (edit.oldText.length === 0) throw new ToolError(`${which}: oldText is empty`);
    if (edit.oldText === edit.newText) throw new ToolError(`${which}: oldText and newText are identical`);
    const positions = occurrences(current, edit.oldText);
    if (positions.length === 0) {
      throw new ToolError(
        `${which}: oldText not found in ${label}${i > 0 ? " (after applying the previous edits)" : ""}. ` +
          `Nothing was changed. Check whitespace and indentation, or read the file again.`,
      );
    }
    if (positions.length > 1 && !edit.replaceAll) {
      const lines = positions.slice(0, 10).map((p) => lineAt(current, p));
      throw new ToolError(
        `${which}: oldText matches ${positions.length} times in ${label} (lines ${lines.join(", ")}${positions.length > 10 ? ", …" : ""}). ` +
          `Nothing was changed. Include more surrounding context to make it unique, or set replaceAll.`,
      );
    }
    applied.push({ edit: i + 1, line: lineAt(current, positions[0]!), replacements: positions.length });
    current = current.split(edit.oldText).join(edit.newText);
  });
  return { text: current, applied };
}

/** Start offsets of non-overlapping occurrences, left to right (the ones split/join replaces). */
function occurrences(text: string, needle: string): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) out.push(at);
  return out;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
