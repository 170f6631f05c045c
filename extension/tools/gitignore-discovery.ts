import * as path from "node:path";
import * as vscode from "vscode";

/** What one search for nested .gitignore files found, and what that search was pruned by. */
export interface Discovered {
  /** Workspace-relative directories holding a .gitignore (below the root), as found. */
  dirs: readonly string[];
  /** The prune globs the search excluded: the list is complete as long as each of them still holds. */
  used: readonly string[];
}

/**
 * Where a folder's nested .gitignore files are, found once (one findFiles) and kept until
 * a .gitignore is created, changed or deleted: by anyone, through the FileSystemWatcher on
 * `**\/.gitignore`; by our own write and edit tools, through `wrote`, at once (the
 * watcher's event comes later, and the agent's next glob must count what it just wrote).
 * The files' contents are read again on every use; only where they are is kept.
 */
export class GitignoreDiscovery implements vscode.Disposable {
  private entry: { key: string; found: Discovered } | undefined;
  /** Bumped by every invalidation: a search that started before one is not kept. */
  private generation = 0;
  private readonly invalidated = new vscode.EventEmitter<vscode.Uri | undefined>();
  /** Fires on every invalidation, with the .gitignore that changed when known. */
  readonly onDidInvalidate = this.invalidated.event;
  private readonly watcher: vscode.FileSystemWatcher | undefined;

  /** Watches the folder's .gitignore files when given a folder (the editor tools'); without one, `wrote` and `invalidate` only. */
  constructor(folder?: vscode.WorkspaceFolder) {
    if (!folder) return;
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, "**/.gitignore"));
    const drop = (uri: vscode.Uri) => this.invalidate(uri);
    this.watcher.onDidCreate(drop);
    this.watcher.onDidChange(drop);
    this.watcher.onDidDelete(drop);
  }

  /** The kept discovery, when it was made for the same settings' excludes (`key`). */
  get(key: string): Discovered | undefined {
    return this.entry?.key === key ? this.entry.found : undefined;
  }

  /** Call before searching; hand the result to `set` with it. */
  begin(): number {
    return this.generation;
  }

  /** Keeps a discovery, unless a .gitignore changed since its search began. */
  set(key: string, found: Discovered, since: number): void {
    if (since === this.generation) this.entry = { key, found };
  }

  invalidate(uri?: vscode.Uri): void {
    this.generation++;
    this.entry = undefined;
    this.invalidated.fire(uri);
  }

  /** Our own tools wrote (or undid a write to) `abs`: a .gitignore counts from the next search on. */
  wrote(abs: string): void {
    if (path.basename(abs) === ".gitignore") this.invalidate(vscode.Uri.file(abs));
  }

  dispose(): void {
    this.watcher?.dispose();
    this.invalidated.dispose();
  }
}
