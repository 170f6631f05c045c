import { open } from "node:fs/promises";
import { READ_FILE, type ReadFileParams } from "../definitions";
import { ToolError, fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { looksBinary, plural } from "../text";
import { DEFAULT_MAX_RESULT_CHARS, textOutput, type Tool } from "../types";

const CHUNK_BYTES = 64 * 1024;
/** Lines shown when no endLine is given; a model rarely needs more at once. */
const DEFAULT_MAX_LINES = 2_000;
/** Longer lines are shortened, so one minified line cannot fill the whole result. */
const MAX_LINE_CHARS = 2_000;

/**
 * read_file for Node: streams the file, so a range near the start of a huge file reads
 * only that far. Stops at whole lines within the result cap and says how to read on.
 */
export function createReadFileTool(): Tool<ReadFileParams> {
  const maxResultChars = DEFAULT_MAX_RESULT_CHARS;
  return {
    ...READ_FILE,
    maxResultChars,
    async execute(args, ctx) {
      const file = await resolveInsideRoot(ctx.root, args.path, { forWrite: false });
      const shown = displayPath(ctx.root, file);
      const start = args.startLine ?? 1;
      if (args.endLine !== undefined && args.endLine < start) {
        throw new ToolError(`endLine (${args.endLine}) is before startLine (${start})`);
      }
      const end = args.endLine ?? start + DEFAULT_MAX_LINES - 1;
      // Room for the closing note, so the registry's cap never cuts a line in half.
      const budget = maxResultChars - 300;

      let handle;
      try {
        handle = await open(file, "r");
      } catch (err) {
        throw fsError(err, shown);
      }
      try {
        const stat = await handle.stat();
        if (stat.isDirectory()) throw new ToolError(`${shown} is a directory; use list_dir`);
        const decoder = new TextDecoder("utf-8");
        const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
        const out: string[] = [];
        let used = 0;
        let lineNo = 0; // lines completed so far
        let partial = "";
        let eof = false;
        let stoppedAt: number | undefined; // last line shown when the budget ran out
        let first = true;

        const take = (line: string): boolean => {
          lineNo++;
          if (lineNo < start || lineNo > end) return lineNo <= end;
          const body = line.endsWith("\r") ? line.slice(0, -1) : line;
          const shownLine = body.length > MAX_LINE_CHARS ? `${body.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]` : body;
          const rendered = `${String(lineNo).padStart(6)}\t${shownLine}`;
          if (used + rendered.length + 1 > budget && out.length > 0) {
            stoppedAt = lineNo - 1;
            return false;
          }
          out.push(rendered);
          used += rendered.length + 1;
          return true;
        };

        reading: for (;;) {
          ctx.signal.throwIfAborted();
          const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
          if (first) {
            first = false;
            if (looksBinary(buffer.subarray(0, bytesRead))) {
              throw new ToolError(`${shown} is a binary file (${plural(stat.size, "byte")}); read_file shows text only`);
            }
          }
          if (bytesRead === 0) {
            eof = true;
            const rest = partial + decoder.decode();
            if (rest.length > 0) take(rest);
            break;
          }
          const text = partial + decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
          let from = 0;
          for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
            const keepGoing = take(text.slice(from, nl));
            from = nl + 1;
            if (!keepGoing) break reading;
          }
          partial = text.slice(from);
        }

        if (lineNo === 0) return textOutput(`(${shown} is empty)`);
        if (out.length === 0) {
          throw new ToolError(`${shown} has ${plural(lineNo, "line")}; startLine ${start} is past the end`);
        }
        const lastShown = stoppedAt ?? Math.min(end, lineNo);
        const notes: string[] = [];
        if (stoppedAt !== undefined) {
          notes.push(`[output limit reached: showing lines ${start}-${lastShown}${eof ? ` of ${lineNo}` : ""}; continue with startLine ${lastShown + 1}]`);
        } else if (!eof || lastShown < lineNo) {
          const total = eof ? ` of ${lineNo}` : "";
          notes.push(`[showing lines ${start}-${lastShown}${total}; the file continues, read on with startLine ${lastShown + 1}]`);
        }
        const text = out.join("\n") + (notes.length ? `\n${notes.join("\n")}` : "");
        return textOutput(text, { truncated: stoppedAt !== undefined });
      } finally {
        await handle.close();
      }
    },
  };
}
