import picomatch from "picomatch";
import * as vscode from "vscode";

/** The last matcher built per folder: the same function while the setting is unchanged keeps the watched manifest warm. */
const built = new Map<string, { key: string; excluded: (rel: string) => boolean }>();

/** What files.exclude hides in the folder (the entries set to true), for the manifests around commands: a folder glob hides what is in it. */
export function filesExcluded(folder: vscode.WorkspaceFolder): (rel: string) => boolean {
  const table = vscode.workspace.getConfiguration("files", folder.uri).get<Record<string, unknown>>("exclude") ?? {};
  const globs = Object.entries(table)
    .filter(([, on]) => on === true)
    .map(([glob]) => glob.replace(/^\/+/, ""));
  const key = JSON.stringify(globs);
  const known = built.get(folder.uri.toString());
  if (known?.key === key) return known.excluded;
  const excluded = matcherOf(globs);
  built.set(folder.uri.toString(), { key, excluded });
  return excluded;
}

function matcherOf(globs: string[]): (rel: string) => boolean {
  if (globs.length === 0) return () => false;
  const excluded = picomatch(globs, { dot: true });
  return (rel) => {
    const parts = rel.split("/");
    for (let i = 1; i <= parts.length; i++) if (excluded(parts.slice(0, i).join("/"))) return true;
    return false;
  };
}
