import { expand } from "brace-expansion";
import picomatch from "picomatch";
import * as vscode from "vscode";
import { gitignoreChecker } from "../../core/tools/gitignore";
import { isProtectedName } from "../../core/tools/sandbox";

/**
 * What the editor's glob leaves out, so it lists what the core's glob lists plus what the
 * user hides in VS Code: files.exclude, search.exclude (the entries set to true) and the
 * folder's .gitignore files (the core's matcher), never .git/ or .downcity/.
 * `glob` (the settings and the protected folders) goes to findFiles, so those trees are not
 * searched at all; `keeps` decides exactly. .gitignore rules stay out of `glob`: a deeper
 * .gitignore may re-include (`!`) what a higher one ignores, which one glob cannot say.
 */
export interface EditorExcludes {
  glob: string;
  keeps(rel: string): boolean;
}

export function editorExcludes(folder: vscode.WorkspaceFolder, root: string): EditorExcludes {
  const settings: string[] = [];
  for (const section of ["files", "search"]) {
    const table = vscode.workspace.getConfiguration(section, folder.uri).get<Record<string, unknown>>("exclude") ?? {};
    for (const [glob, on] of Object.entries(table)) if (on === true) settings.push(glob.replace(/^\/+/, ""));
  }
  const excluded = settings.length > 0 ? picomatch(settings, { dot: true }) : () => false;
  const ignored = gitignoreChecker(root);
  // findFiles takes one exclude glob; VS Code's `{a,b}` does not nest, so alternatives are flattened.
  const flat = new Set<string>();
  for (const glob of ["**/.git", "**/.downcity", ...settings]) {
    for (const one of expand(glob)) if (!/[{},]/.test(one)) flat.add(one);
  }
  return {
    glob: `{${[...flat].join(",")}}`,
    keeps(rel) {
      const parts = rel.split("/");
      if (parts.some(isProtectedName)) return false;
      // A settings glob naming a folder hides everything in it, as in the editor.
      for (let i = 1; i <= parts.length; i++) if (excluded(parts.slice(0, i).join("/"))) return false;
      return !ignored(rel);
    },
  };
}
