import * as vscode from "vscode";
import type { SessionListItem } from "../../core/runtime";
import { listFirstPagesOffThread, type FirstPagesOffThread } from "../../core/runtime/first-pages";
import { FIRST_PAGES } from "./page-sizes";

/** As many folders as a window's remembered rows keep (remembered-rows.ts): a huge multi-root window lists the rest on its thread. */
const MAX_FOLDERS = 32;

/**
 * The first pages of the window's folders, listed on a worker thread from the moment the bundle is evaluated
 * (extension/main.ts), before `activate` runs: the host's thread goes on loading the bundle meanwhile, and at 10,000
 * sessions the pass's `lstat`s no longer wait behind, nor hold up, the extension host's start-up (issue 20).
 */
export class FirstPagePrefetch {
  private started: FirstPagesOffThread | undefined;

  /** `execArgv`: the worker's Node flags (tests run the .ts source through tsx's hook). */
  constructor(workerScript: string, folders: readonly vscode.WorkspaceFolder[], execArgv?: string[]) {
    // Run while the bundle loads: nothing here may keep the extension from loading (the tree then lists on the
    // host's thread).
    try {
      const roots = folders
        .filter((f) => f.uri.scheme === "file")
        .slice(0, MAX_FOLDERS)
        .map((f) => f.uri.fsPath);
      if (roots.length > 0)
        this.started = listFirstPagesOffThread(workerScript, roots, FIRST_PAGES, execArgv && { execArgv });
    } catch {
      this.started = undefined;
    }
  }

  /**
   * A folder's first pages (live, then archived), when they were started for it and listed the folder the registry
   * opened (`root`, its real path); after `end`, none: a folder added later lists on its own.
   */
  take(folder: vscode.WorkspaceFolder, root: string): Promise<SessionListItem[][]> | undefined {
    const listed = this.started?.pages(folder.uri.fsPath);
    return listed?.then(({ real, pages }) => {
      if (real !== root) throw new Error(`listed ${real}, not ${root}`);
      return pages;
    });
  }

  /** The tree drew its first rows (or the window closes): a worker still listing is stopped. */
  end(): void {
    this.started?.stop();
    this.started = undefined;
  }
}
