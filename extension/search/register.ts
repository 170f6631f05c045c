import * as vscode from "vscode";
import type { SearchHit } from "../../core/runtime/types";
import { guarded } from "../commands/errors";
import type { FolderRegistry } from "../folders/registry";
import { searchSessionsPicker } from "./search-picker";

export const SEARCH_COMMAND = "downcity.searchSessions";

/** Registers "Downcity: Search Sessions…" over every folder's runtime. */
export function registerSearch(
  runtimes: FolderRegistry,
  reveal: (folder: vscode.WorkspaceFolder, hit: SearchHit, query: string) => Promise<void>,
): vscode.Disposable {
  return vscode.commands.registerCommand(
    SEARCH_COMMAND,
    guarded("Search Sessions", async () => {
      if (runtimes.all().length === 0) {
        void vscode.window.showInformationMessage("Downcity: open a folder to search its sessions.");
        return;
      }
      await searchSessionsPicker({ folders: () => runtimes.all(), reveal });
    }),
  );
}
