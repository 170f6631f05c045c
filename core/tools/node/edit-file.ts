import { readFile } from "node:fs/promises";
import { atomicWriteFile } from "../atomic-write";
import { EDIT_FILE, type EditFileParams } from "../definitions";
import { applyEdits, type TextEdit } from "../edits";
import { ToolError, fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { looksBinary, plural } from "../text";
import { textOutput, type Tool } from "../types";

/** edit_file for Node: every edit is checked in memory first, then one atomic write (all or none). */
export function createEditFileTool(): Tool<EditFileParams> {
  return {
    ...EDIT_FILE,
    async execute(args, ctx) {
      const file = await resolveInsideRoot(ctx.root, args.path, { forWrite: true });
      const shown = displayPath(ctx.root, file);
      let bytes: Buffer;
      try {
        bytes = await readFile(file);
      } catch (err) {
        const e = fsError(err, shown);
        if ((err as NodeJS.ErrnoException).code === "ENOENT") {
          throw new ToolError(`${e.message}; use write_file to create a new file`);
        }
        throw e;
      }
      if (looksBinary(bytes)) throw new ToolError(`${shown} is a binary file; edit_file changes text files only`);
      const original = bytes.toString("utf8");

      // Models write "\n"; a CRLF file is edited in LF form and written back as CRLF.
      const crlf = isPureCrlf(original) && !args.edits.some((e) => e.oldText.includes("\r"));
      const toLf = (s: string) => (crlf ? s.replace(/\r\n/g, "\n") : s);
      const edits: TextEdit[] = args.edits.map((e) => ({ ...e, oldText: toLf(e.oldText), newText: toLf(e.newText) }));
      const { text, applied } = applyEdits(toLf(original), edits, shown);
      const updated = crlf ? text.replace(/\n/g, "\r\n") : text;

      ctx.signal.throwIfAborted();
      await atomicWriteFile(file, updated);
      const summary = applied
        .map((a) => `  edit ${a.edit}: line ${a.line}${a.replacements > 1 ? ` (${a.replacements} replacements)` : ""}`)
        .join("\n");
      return textOutput(`edited ${shown}: applied ${plural(applied.length, "edit")}\n${summary}`);
    },
  };
}

function isPureCrlf(text: string): boolean {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1;
  return crlf > 0 && crlf === lf;
}
