import { ToolError } from "./errors";
import { plural } from "./text";
import { DEFAULT_MAX_RESULT_CHARS, textOutput, type ToolOutput } from "./types";

/** Lines shown when no endLine is given; a model rarely needs more at once. */
export const READ_DEFAULT_MAX_LINES = 2_000;
/** Longer lines are shortened, so one minified line cannot fill the whole result. */
const MAX_LINE_CHARS = 2_000;

/**
 * The read_file result built line by line: numbers each line of the requested range and
 * stops at whole lines within the result cap, with a note that says how to read on.
 * Shared by the Node tool (which streams the file) and the editor-backed one (which has
 * the document's text), so both answer the same way.
 */
export class LineWindow {
  private readonly out: string[] = [];
  private used = 0;
  private lineNo = 0; // lines completed so far
  private stoppedAt: number | undefined; // last line shown when the budget ran out
  private readonly start: number;
  private readonly end: number;
  // Room for the closing note, so the registry's cap never cuts a line in half.
  private readonly budget: number;

  constructor(
    private readonly shown: string,
    range: { startLine?: number | undefined; endLine?: number | undefined },
    maxResultChars = DEFAULT_MAX_RESULT_CHARS,
  ) {
    this.start = range.startLine ?? 1;
    if (range.endLine !== undefined && range.endLine < this.start) {
      throw new ToolError(`endLine (${range.endLine}) is before startLine (${this.start})`);
    }
    this.end = range.endLine ?? this.start + READ_DEFAULT_MAX_LINES - 1;
    this.budget = maxResultChars - 300;
  }

  /** Adds the next line (without its "\n"); false once no later line can be shown. */
  take(line: string): boolean {
    this.lineNo++;
    if (this.lineNo < this.start || this.lineNo > this.end) return this.lineNo <= this.end;
    const body = line.endsWith("\r") ? line.slice(0, -1) : line;
    const shownLine =
      body.length > MAX_LINE_CHARS
        ? `${body.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]`
        : body;
    const rendered = `${String(this.lineNo).padStart(6)}\t${shownLine}`;
    if (this.used + rendered.length + 1 > this.budget && this.out.length > 0) {
      this.stoppedAt = this.lineNo - 1;
      return false;
    }
    this.out.push(rendered);
    this.used += rendered.length + 1;
    return true;
  }

  /** Feeds a whole text (split on "\n"; a trailing newline ends the last line). */
  takeText(text: string): { eof: boolean } {
    let from = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
      const keepGoing = this.take(text.slice(from, nl));
      from = nl + 1;
      if (!keepGoing) return { eof: false };
    }
    if (from < text.length) this.take(text.slice(from));
    return { eof: true };
  }

  /** The result; `eof` says whether every line of the file was seen (so the total is known). */
  finish(eof: boolean): ToolOutput {
    const { lineNo, start, end, stoppedAt, shown } = this;
    if (lineNo === 0) return textOutput(`(${shown} is empty)`);
    if (this.out.length === 0)
      throw new ToolError(`${shown} has ${plural(lineNo, "line")}; startLine ${start} is past the end`);
    const lastShown = stoppedAt ?? Math.min(end, lineNo);
    const notes: string[] = [];
    if (stoppedAt !== undefined) {
      notes.push(
        `[output limit reached: showing lines ${start}-${lastShown}${eof ? ` of ${lineNo}` : ""}; continue with startLine ${lastShown + 1}]`,
      );
    } else if (!eof || lastShown < lineNo) {
      const total = eof ? ` of ${lineNo}` : "";
      notes.push(
        `[showing lines ${start}-${lastShown}${total}; the file continues, read on with startLine ${lastShown + 1}]`,
      );
    }
    const text = this.out.join("\n") + (notes.length ? `\n${notes.join("\n")}` : "");
    return textOutput(text, { truncated: stoppedAt !== undefined });
  }
}
