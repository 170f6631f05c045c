import { open } from "node:fs/promises";
import { READ_FILE, type ReadFileParams } from "../definitions";
import { ToolError, fsError } from "../errors";
import { LineWindow } from "../line-window";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { looksBinary, plural } from "../text";
import { DEFAULT_MAX_RESULT_CHARS, type Tool } from "../types";

const CHUNK_BYTES = 64 * 1024;

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
      const window = new LineWindow(shown, args, maxResultChars);

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
        let partial = "";
        let eof = false;
        let first = true;

        reading: for (;;) {
          ctx.signal.throwIfAborted();
          const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
          if (first) {
            first = false;
            if (looksBinary(buffer.subarray(0, bytesRead))) {
              throw new ToolError(
                `${shown} is a binary file (${plural(stat.size, "byte")}); read_file shows text only`,
              );
            }
          }
          if (bytesRead === 0) {
            eof = true;
            const rest = partial + decoder.decode();
            if (rest.length > 0) window.take(rest);
            break;
          }
          const text = partial + decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
          let from = 0;
          for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
            const keepGoing = window.take(text.slice(from, nl));
            from = nl + 1;
            if (!keepGoing) break reading;
          }
          partial = text.slice(from);
        }

        return window.finish(eof);
      } finally {
        await handle.close();
      }
    },
  };
}
