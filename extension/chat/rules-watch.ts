import * as vscode from "vscode";
import { ruleNames } from "../../core/runtime/host";

/**
 * Tells a chat view when a project rules file (AGENTS.md, or one `downcity.rules.files`
 * names) is created, changed or deleted on disk, so its rules chips refresh at once rather
 * than at the next turn's end. The watched names follow the setting.
 */
export function watchRules(changed: (folderKey: string) => void): vscode.Disposable {
  let watcher: vscode.FileSystemWatcher | undefined;
  const fire = (uri: vscode.Uri) => {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (folder) changed(folder.uri.toString());
  };
  const watch = () => {
    watcher?.dispose();
    const extras = new Set<string>();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const files = vscode.workspace.getConfiguration("downcity.rules", folder.uri).get<unknown>("files");
      if (Array.isArray(files)) for (const f of files) if (typeof f === "string") extras.add(f);
    }
    // A bare name anywhere (a subfolder's AGENTS.md counts too), and inside it when it is a folder (.clinerules/).
    const globs = ruleNames([...extras]).flatMap((n) => (n.includes("/") ? [n] : [`**/${n}`, `**/${n}/**`]));
    watcher = vscode.workspace.createFileSystemWatcher(`{${globs.join(",")}}`);
    watcher.onDidCreate(fire);
    watcher.onDidChange(fire);
    watcher.onDidDelete(fire);
  };
  watch();
  const settings = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration("downcity.rules.files")) watch();
  });
  return new vscode.Disposable(() => {
    settings.dispose();
    watcher?.dispose();
  });
}
