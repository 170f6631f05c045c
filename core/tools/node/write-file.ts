import { atomicWriteFile } from "../atomic-write";
import { WRITE_FILE, type WriteFileParams } from "../definitions";
import { fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { plural } from "../text";
import { textOutput, type Tool } from "../types";

/** write_file for Node: creates missing parents, replaces atomically, keeps an existing file's mode. */
export function createWriteFileTool(): Tool<WriteFileParams> {
  return {
    ...WRITE_FILE,
    async execute(args, ctx) {
      const file = await resolveInsideRoot(ctx.root, args.path, { forWrite: true });
      const shown = displayPath(ctx.root, file);
      ctx.signal.throwIfAborted();
      let result;
      try {
        result = await atomicWriteFile(file, args.content, { mkdirs: true });
      } catch (err) {
        throw fsError(err, shown);
      }
      const lines = args.content === "" ? 0 : args.content.split("\n").length - (args.content.endsWith("\n") ? 1 : 0);
      return textOutput(`${result.created ? "created" : "overwrote"} ${shown} (${plural(result.bytes, "byte")}, ${plural(lines, "line")})`);
    },
  };
}
