import { existsSync } from "node:fs";
import { appendFile, readFile } from "node:fs/promises";
import { join } from "node:path";
import * as vscode from "vscode";
import type { OpenFolder, FolderRegistry } from "./registry";

const ANSWER_KEY = (folder: vscode.WorkspaceFolder) => `downcity.gitignore.${folder.uri.toString()}`;
const ADD = "Add to .gitignore";
const NO = "Don't Add";

/** Whether a .gitignore line already covers the store directory. */
export function ignoresStore(gitignore: string): boolean {
  return gitignore.split(/\r?\n/).some((line) => /^\/?\.downcity\/?(\*\*?)?$/.test(line.trim()));
}

/**
 * Offers once per git folder to add `.downcity/` to its `.gitignore`, when the folder
 * first has a store; the answer (either) is remembered in workspaceState.
 */
export function offerGitignore(runtimes: FolderRegistry, state: vscode.Memento): vscode.Disposable {
  const watching = new Map<OpenFolder, () => void>();
  const consider = async (entry: OpenFolder): Promise<void> => {
    const { folder, runtime } = entry;
    if (state.get(ANSWER_KEY(folder)) !== undefined) return stop(entry);
    if (!existsSync(join(runtime.root, ".git")) || !existsSync(join(runtime.root, ".downcity"))) return;
    stop(entry);
    const path = join(runtime.root, ".gitignore");
    const current = await readFile(path, "utf8").catch(() => "");
    if (ignoresStore(current)) return void (await state.update(ANSWER_KEY(folder), "present"));
    await state.update(ANSWER_KEY(folder), "asked");
    const answer = await vscode.window.showInformationMessage(
      `Downcity keeps its sessions in ${folder.name}/.downcity/. Add it to .gitignore so they are not committed?`,
      ADD,
      NO,
    );
    await state.update(ANSWER_KEY(folder), answer === ADD ? "added" : "declined");
    if (answer === ADD) await appendFile(path, `${current === "" || current.endsWith("\n") ? "" : "\n"}.downcity/\n`);
  };
  const stop = (entry: OpenFolder) => {
    watching.get(entry)?.();
    watching.delete(entry);
  };
  const watch = (entry: OpenFolder) => {
    if (state.get(ANSWER_KEY(entry.folder)) !== undefined) return;
    // The first change of the folder's store is when `.downcity/` may have appeared.
    watching.set(
      entry,
      entry.runtime.onChange(() => void consider(entry)),
    );
    void consider(entry);
  };
  runtimes.all().forEach(watch);
  const sub = runtimes.onDidChange(({ added, removed }) => {
    removed.forEach(stop);
    added.forEach(watch);
  });
  return new vscode.Disposable(() => {
    sub.dispose();
    [...watching.keys()].forEach(stop);
  });
}
