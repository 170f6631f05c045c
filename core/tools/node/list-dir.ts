import { readdir, readlink, stat } from "node:fs/promises";
import * as path from "node:path";
import { LIST_DIR, type ListDirParams } from "../definitions";
import { ToolError, fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { plural } from "../text";
import { textOutput, type Tool, type ToolOutput } from "../types";

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
      const listed: ListingEntry[] = [];
      for (const entry of entries) {
        if (entry.isDirectory()) listed.push({ name: entry.name, kind: "dir" });
        else if (entry.isSymbolicLink()) {
          const target = await readlink(path.join(dir, entry.name)).catch(() => "?");
          listed.push({ name: entry.name, kind: "symlink", target });
        } else listed.push({ name: entry.name, kind: "file" });
      }
      return renderListing(shown, listed);
    },
  };
}

export interface ListingEntry {
  name: string;
  kind: "dir" | "file" | "symlink";
  /** A link's target as stored in the link. */
  target?: string;
}

/** list_dir's answer, shared with the editor-backed tool: directories first, each group sorted by name. */
export function renderListing(shown: string, entries: readonly ListingEntry[]): ToolOutput {
  if (entries.length === 0) return textOutput(`${shown}/ is empty`);
  const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const dirs = entries.filter((e) => e.kind === "dir").sort(byName);
  const rest = entries.filter((e) => e.kind !== "dir").sort(byName);
  const lines = [...dirs, ...rest]
    .slice(0, MAX_ENTRIES)
    .map((e) => (e.kind === "dir" ? `${e.name}/` : e.kind === "symlink" ? `${e.name} -> ${e.target ?? "?"}` : e.name));
  const header = `${shown}/ (${plural(dirs.length, "directory").replace("directorys", "directories")}, ${plural(rest.length, "file")})`;
  const more = entries.length > MAX_ENTRIES ? `\n[${entries.length - MAX_ENTRIES} more entries not shown]` : "";
  return textOutput(`${header}\n${lines.join("\n")}${more}`, { truncated: entries.length > MAX_ENTRIES });
}
