import { readFile } from "node:fs/promises";
import { atomicWriteFile } from "../atomic-write";
import { WRITE_FILE, type WriteFileParams } from "../definitions";
import { writeDetails } from "../edit-text";
import { fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { looksBinary, plural } from "../text";
import { textOutput, type Tool, type ToolContext } from "../types";

/** write_file for Node: creates missing parents, replaces atomically, keeps an existing file's mode. */
export function createWriteFileTool(): Tool<WriteFileParams> {
  return {
    ...WRITE_FILE,
    async execute(args, ctx) {
      const { file, shown, before } = await current(args, ctx);
      ctx.signal.throwIfAborted();
      let result;
      try {
        result = await atomicWriteFile(file, args.content, { mkdirs: true });
      } catch (err) {
        throw fsError(err, shown);
      }
      const lines = args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
      return {
        ...textOutput(
          `${result.created ? "created" : "overwrote"} ${shown} (${plural(result.bytes, "byte")}, ${plural(lines, "line")})`,
        ),
        details: writeDetails(shown, before, args.content),
      };
    },
    async preview(args, ctx) {
      const { shown, before } = await current(args, ctx);
      return writeDetails(shown, before, args.content);
    },
  };
}

/** The file's text now (undefined when it does not exist; binary files diff as empty). */
async function current(
  args: WriteFileParams,
  ctx: ToolContext,
): Promise<{ file: string; shown: string; before: string | undefined }> {
  const file = await resolveInsideRoot(ctx.root, args.path, { forWrite: true });
  const shown = displayPath(ctx.root, file);
  const bytes = await readFile(file).catch(() => undefined);
  const before = bytes === undefined ? undefined : looksBinary(bytes) ? "" : bytes.toString("utf8");
  return { file, shown, before };
}
