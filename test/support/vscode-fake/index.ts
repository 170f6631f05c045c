/**
 * The narrowest fake of the `vscode` API that unit tests of the glue need. Tests set
 * what a call should answer (e.g. `window.showQuickPick = async () => …`) and read what
 * was shown. Add members here as tests need them; keep behaviour that matters (events,
 * URIs, disposables) real.
 */
import { pathToFileURL, fileURLToPath } from "node:url";
import { posix } from "node:path";
import { readdir, readFile, stat, writeFile } from "node:fs/promises";

export class Disposable {
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  constructor(private readonly fn: () => unknown) {}
  dispose(): void {
    this.fn();
  }
}

export type Event<T> = (listener: (e: T) => unknown, thisArg?: unknown, disposables?: Disposable[]) => Disposable;

export class EventEmitter<T> {
  private readonly listeners = new Set<(e: T) => unknown>();
  readonly event: Event<T> = (listener, thisArg, disposables) => {
    const bound = thisArg ? listener.bind(thisArg) : listener;
    this.listeners.add(bound);
    const d = new Disposable(() => this.listeners.delete(bound));
    disposables?.push(d);
    return d;
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly authority: string,
    readonly path: string,
    readonly query = "",
    readonly fragment = "",
  ) {}
  static file(fsPath: string): Uri {
    return new Uri("file", "", pathToFileURL(fsPath).pathname);
  }
  static parse(value: string): Uri {
    const url = new URL(value);
    return new Uri(
      url.protocol.slice(0, -1),
      decodeURIComponent(url.host), // as VS Code's Uri.parse: `ssh-remote%2Bbox` is `ssh-remote+box`
      decodeURIComponent(url.pathname),
      url.search.slice(1),
      url.hash.slice(1),
    );
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, base.authority, posix.join(base.path, ...segments), base.query, base.fragment);
  }
  static from(parts: { scheme: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(parts.scheme, parts.authority ?? "", parts.path ?? "/", parts.query ?? "", parts.fragment ?? "");
  }
  get fsPath(): string {
    return this.scheme === "file" ? fileURLToPath(`file://${this.path}`) : this.path;
  }
  with(change: { scheme?: string; authority?: string; path?: string; query?: string; fragment?: string }): Uri {
    return new Uri(
      change.scheme ?? this.scheme,
      change.authority ?? this.authority,
      change.path ?? this.path,
      change.query ?? this.query,
      change.fragment ?? this.fragment,
    );
  }
  toString(): string {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ""}${this.fragment ? `#${this.fragment}` : ""}`;
  }
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}
export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}
export class TreeItem {
  description?: string | boolean;
  tooltip?: unknown;
  iconPath?: unknown;
  contextValue?: string;
  command?: unknown;
  id?: string;
  resourceUri?: Uri;
  constructor(
    public label: string | { label: string },
    public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}
export class MarkdownString {
  constructor(public value = "") {}
  appendMarkdown(text: string): this {
    this.value += text;
    return this;
  }
  appendText(text: string): this {
    this.value += text.replace(/[\\`*_{}[\]()#+\-.!]/g, "\\$&");
    return this;
  }
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}
export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}
export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  readonly token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    if (this.token.isCancellationRequested) return;
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

type Fn = (...args: any[]) => any;
const unset =
  (name: string): Fn =>
  () => {
    throw new Error(`vscode fake: ${name} is not set by this test`);
  };

/** Registered commands, callable from tests through `commands.executeCommand`. */
const registered = new Map<string, Fn>();
/** Installed extensions (`vscode.extensions.all`): tests put the ones a case needs here. */
export const extensions = { all: [] as unknown[] };

export const commands = {
  registerCommand(id: string, fn: Fn): Disposable {
    if (registered.has(id)) throw new Error(`command '${id}' already exists`);
    registered.set(id, fn);
    return new Disposable(() => registered.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    const fn = registered.get(id);
    if (!fn) throw new Error(`command '${id}' not found`);
    return fn(...args);
  },
  async getCommands(): Promise<string[]> {
    return [...registered.keys()];
  },
};

export class CancellationError extends Error {
  constructor() {
    super("Canceled");
    this.name = "Canceled";
  }
}

export enum QuickPickItemKind {
  Separator = -1,
  Default = 0,
}

export class RelativePattern {
  readonly baseUri: Uri;
  constructor(
    readonly base: { uri: Uri } | Uri | string,
    readonly pattern: string,
  ) {
    this.baseUri = typeof base === "string" ? Uri.file(base) : base instanceof Uri ? base : base.uri;
  }
}

/** A file watcher the code under test created; tests fire its events. */
export class FakeFileSystemWatcher {
  private readonly created = new EventEmitter<Uri>();
  private readonly changed = new EventEmitter<Uri>();
  private readonly deleted = new EventEmitter<Uri>();
  readonly onDidCreate = this.created.event;
  readonly onDidChange = this.changed.event;
  readonly onDidDelete = this.deleted.event;
  disposed = false;
  constructor(readonly pattern: RelativePattern | string) {}
  fire(kind: "create" | "change" | "delete", uri: Uri): void {
    (kind === "create" ? this.created : kind === "change" ? this.changed : this.deleted).fire(uri);
  }
  dispose(): void {
    this.disposed = true;
  }
}

/** What the code under test created or wrote, for tests to inspect. */
export const created = {
  watchers: [] as FakeFileSystemWatcher[],
  treeViews: [] as { id: string; options: any; disposed: boolean }[],
  statusBarItems: [] as { text: string; tooltip?: unknown; command?: unknown; visible: boolean }[],
  output: [] as string[],
};

/** Events the tests fire in place of VS Code. */
export const fire = {
  workspaceFolders: new EventEmitter<{ added: readonly unknown[]; removed: readonly unknown[] }>(),
  grantTrust: new EventEmitter<void>(),
  configuration: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
};

/** Settings `workspace.getConfiguration(section).get(key)` answers, by full key (`downcity.providers`). */
export const settings: Record<string, unknown> = {};

export const window: Record<string, Fn> = {
  showInformationMessage: async () => undefined,
  showWarningMessage: async () => undefined,
  showErrorMessage: async () => undefined,
  showQuickPick: unset("window.showQuickPick"),
  showInputBox: unset("window.showInputBox"),
  showSaveDialog: unset("window.showSaveDialog"),
  withProgress: async (_options: unknown, task: Fn) => task({ report() {} }, new CancellationTokenSource().token),
  registerWebviewViewProvider: () => new Disposable(() => {}),
  // Never fired here: @terminal's output recorder listens to it.
  onDidStartTerminalShellExecution: () => new Disposable(() => {}),
  onDidEndTerminalShellExecution: () => new Disposable(() => {}),
  registerWebviewPanelSerializer: () => new Disposable(() => {}),
  createOutputChannel: () => ({
    appendLine: (line: string) => void created.output.push(line),
    append: (text: string) => void created.output.push(text),
    show() {},
    dispose() {},
  }),
  createTreeView: (id: string, options: unknown) => {
    const view = { id, options, disposed: false, reveal: async () => {}, dispose: () => void (view.disposed = true) };
    created.treeViews.push(view);
    return view;
  },
  createStatusBarItem: () => {
    const item = {
      text: "",
      visible: false,
      show: () => void (item.visible = true),
      hide: () => void (item.visible = false),
      dispose: () => void (item.visible = false),
    } as any;
    created.statusBarItems.push(item);
    return item;
  },
};

export const workspace: Record<string, any> = {
  workspaceFolders: undefined,
  isTrusted: true,
  registerTextDocumentContentProvider: () => new Disposable(() => {}),
  getConfiguration: (section = "") => {
    const full = (key: string) => (section ? `${section}.${key}` : key);
    return {
      get: (key: string, fallback?: unknown) => settings[full(key)] ?? fallback,
      has: (key: string) => full(key) in settings,
      // One scope: every value is the user's (global) one.
      inspect: (key: string) =>
        full(key) in settings ? { key: full(key), globalValue: settings[full(key)] } : { key: full(key) },
      update: async (key: string, value: unknown) => {
        const name = full(key);
        if (value === undefined) delete settings[name];
        else settings[name] = value;
        fire.configuration.fire({ affectsConfiguration: (s: string) => name === s || name.startsWith(`${s}.`) });
      },
    };
  },
  onDidChangeWorkspaceFolders: fire.workspaceFolders.event,
  onDidGrantWorkspaceTrust: fire.grantTrust.event,
  onDidChangeConfiguration: fire.configuration.event,
  // Never fired here: the file list of @-mentions listens to them.
  onDidCreateFiles: () => new Disposable(() => {}),
  onDidDeleteFiles: () => new Disposable(() => {}),
  onDidRenameFiles: () => new Disposable(() => {}),
  createFileSystemWatcher: (pattern: RelativePattern | string) => {
    const watcher = new FakeFileSystemWatcher(pattern);
    created.watchers.push(watcher);
    return watcher;
  },
  fs: {
    stat: async (uri: Uri) => {
      const s = await stat(uri.fsPath);
      return { type: s.isDirectory() ? 2 : 1, size: s.size, mtime: s.mtimeMs, ctime: s.ctimeMs };
    },
    readFile: async (uri: Uri) => new Uint8Array(await readFile(uri.fsPath)),
    writeFile: async (uri: Uri, data: Uint8Array) => writeFile(uri.fsPath, data),
    readDirectory: async (uri: Uri) =>
      (await readdir(uri.fsPath, { withFileTypes: true })).map((d) => [d.name, d.isDirectory() ? 2 : 1] as const),
  },
};

export const env: Record<string, any> = {
  appRoot: "",
  uiKind: 1,
  openExternal: async () => true,
};

export const version = "1.100.0-fake";
export * from "./editor";
