import { readlink } from "node:fs/promises";
import * as path from "node:path";
import * as vscode from "vscode";
import { LIST_DIR, READ_FILE, type ListDirParams, type ReadFileParams } from "../../core/tools/definitions";
import { ToolError } from "../../core/tools/errors";
import { LineWindow } from "../../core/tools/line-window";
import { renderListing, type ListingEntry } from "../../core/tools/node/list-dir";
import { DEFAULT_MAX_RESULT_CHARS, type Tool } from "../../core/tools/types";
import { editorText, isNotFound } from "./documents";
import { resolveToolPath } from "./paths";

/** read_file as the editor sees it: an open document's text with its unsaved changes, else the file. */
export function createEditorReadFileTool(): Tool<ReadFileParams> {
  const maxResultChars = DEFAULT_MAX_RESULT_CHARS;
  return {
    ...READ_FILE,
    maxResultChars,
    async execute(args, ctx) {
      const file = await resolveToolPath(ctx.root, args.path, false);
      const window = new LineWindow(file.shown, args, maxResultChars);
      const text = await editorText(file.uri, file.shown);
      if (text === undefined) throw new ToolError(`${file.shown}: no such file or directory`);
      ctx.signal.throwIfAborted();
      const { eof } = window.takeText(text);
      return window.finish(eof);
    },
  };
}

/** list_dir through `workspace.fs`, in the core's format. */
export function createEditorListDirTool(): Tool<ListDirParams> {
  return {
    ...LIST_DIR,
    async execute(args, ctx) {
      const dir = await resolveToolPath(ctx.root, args.path, false);
      let entries: [string, vscode.FileType][];
      try {
        const stat = await vscode.workspace.fs.stat(dir.uri);
        if (!(stat.type & vscode.FileType.Directory))
          throw new ToolError(`${dir.shown} is a file, not a directory; use read_file`);
        entries = await vscode.workspace.fs.readDirectory(dir.uri);
      } catch (err) {
        if (isNotFound(err)) throw new ToolError(`${dir.shown}: no such file or directory`);
        throw err;
      }
      const listed: ListingEntry[] = [];
      for (const [name, type] of entries) {
        if (type & vscode.FileType.SymbolicLink) {
          // workspace.fs has no readlink; the sandbox root is a local folder, so ask the OS.
          const target = await readlink(path.join(dir.abs, name)).catch(() => "?");
          listed.push({ name, kind: "symlink", target });
        } else listed.push({ name, kind: type & vscode.FileType.Directory ? "dir" : "file" });
      }
      return renderListing(dir.shown, listed);
    },
  };
}
