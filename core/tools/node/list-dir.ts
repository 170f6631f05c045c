import { readdir, readlink, stat } from "node:fs/promises";
import * as path from "node:path";
import { LIST_DIR, type ListDirParams } from "../definitions";
import { ToolError, fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { plural } from "../text";
import { textOutput, type Tool } from "../types";

const MAX_ENTRIES = 1_000;

/** list_dir for Node: one entry a line, directories first, each group sorted by name. */
export function createListDirTool(): Tool<ListDirParams> {
  return {
    ...LIST_DIR,
    async execute(args, ctx) {
      const dir = await resolveInsideRoot(ctx.root, args.path, { forWrite: false });
      const shown = displayPath(ctx.root, dir);
      const info = await stat(dir).catch((err) => {
        throw fsError(err, shown);
      });
      if (!info.isDirectory()) throw new ToolError(`${shown} is a file, not a directory; use read_file`);
      const entries = await readdir(dir, { withFileTypes: true }).catch((err) => {
        throw fsError(err, shown);
      });
      if (entries.length === 0) return textOutput(`${shown}/ is empty`);
      const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
      const dirs = entries.filter((e) => e.isDirectory()).sort(byName);
      const rest = entries.filter((e) => !e.isDirectory()).sort(byName);
      const lines: string[] = [];
      for (const entry of [...dirs, ...rest].slice(0, MAX_ENTRIES)) {
        if (entry.isDirectory()) lines.push(`${entry.name}/`);
        else if (entry.isSymbolicLink()) {
          const target = await readlink(path.join(dir, entry.name)).catch(() => "?");
          lines.push(`${entry.name} -> ${target}`);
        } else lines.push(entry.name);
      }
      const header = `${shown}/ (${plural(dirs.length, "directory").replace("directorys", "directories")}, ${plural(rest.length, "file")})`;
      const more = entries.length > MAX_ENTRIES ? `\n[${entries.length - MAX_ENTRIES} more entries not shown]` : "";
      return textOutput(`${header}\n${lines.join("\n")}${more}`, { truncated: entries.length > MAX_ENTRIES });
    },
  };
}
