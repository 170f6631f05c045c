import { readFile } from "node:fs/promises";
import { atomicWriteFile } from "../atomic-write";
import { EDIT_FILE, type EditFileParams } from "../definitions";
import { planEdit, type PlannedEdit } from "../edit-text";
import { ToolError, fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { looksBinary } from "../text";
import { textOutput, type Tool, type ToolContext } from "../types";

/** edit_file for Node: every edit is checked in memory first, then one atomic write (all or none). */
export function createEditFileTool(): Tool<EditFileParams> {
  return {
    ...EDIT_FILE,
    async execute(args, ctx) {
      const { file, plan } = await planFor(args, ctx);
      ctx.signal.throwIfAborted();
      await atomicWriteFile(file, plan.text);
      return { ...textOutput(plan.summary), details: plan.details };
    },
    async preview(args, ctx) {
      return (await planFor(args, ctx)).plan.details;
    },
  };
}

async function planFor(args: EditFileParams, ctx: ToolContext): Promise<{ file: string; plan: PlannedEdit }> {
  const file = await resolveInsideRoot(ctx.root, args.path, { forWrite: true });
  const shown = displayPath(ctx.root, file);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const e = fsError(err, shown);
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new ToolError(`${e.message}; use write_file to create a new file`);
    throw e;
  }
  if (looksBinary(bytes)) throw new ToolError(`${shown} is a binary file; edit_file changes text files only`);
  return { file, plan: planEdit(bytes.toString("utf8"), args.edits, shown) };
}
