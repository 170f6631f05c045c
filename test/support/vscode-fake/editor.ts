/**
 * The editor half of the `vscode` fake, for the editor-backed tools' unit tests:
 * documents with unsaved buffers and undo, WorkspaceEdit, workspace.fs on real files,
 * findFiles, content providers, diagnostics, pseudoterminals and diff tabs. Files are
 * real (the sandbox and the saves are what is tested); only the editor is faked.
 * `installEditor(root)` puts it behind `vscode.workspace`, `vscode.window` and
 * `vscode.languages`; what a real VS Code does differently is proven by the in-host tests.
 */
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as nodePath from "node:path";
import picomatch from "picomatch";
import { Disposable, EventEmitter, RelativePattern, Uri, commands, window, workspace } from "./index";

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
  isEqual(o: Position): boolean {
    return o.line === this.line && o.character === this.character;
  }
}
export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    this.start = typeof a === "number" ? new Position(a, b as number) : a;
    this.end = typeof a === "number" ? new Position(c!, d!) : (b as Position);
  }
}
export class Location {
  readonly range: Range;
  constructor(
    readonly uri: Uri,
    at: Range | Position,
  ) {
    this.range = at instanceof Range ? at : new Range(at, at);
  }
}
export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}
export class Diagnostic {
  source?: string;
  code?: string | number;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}
export enum FileType {
  Unknown = 0,
  File = 1,
  Directory = 2,
  SymbolicLink = 64,
}
export enum EndOfLine {
  LF = 1,
  CRLF = 2,
}
export enum SymbolKind {
  File = 0,
  Module = 1,
  Namespace = 2,
  Package = 3,
  Class = 4,
  Method = 5,
  Property = 6,
  Field = 7,
  Constructor = 8,
  Enum = 9,
  Interface = 10,
  Function = 11,
  Variable = 12,
  Constant = 13,
}
export class SymbolInformation {
  constructor(
    readonly name: string,
    readonly kind: SymbolKind,
    readonly containerName: string,
    readonly location: Location,
  ) {}
}
export class DocumentSymbol {
  children: DocumentSymbol[] = [];
  constructor(
    readonly name: string,
    readonly detail: string,
    readonly kind: SymbolKind,
    readonly range: Range,
    readonly selectionRange: Range,
  ) {}
}
export class Hover {
  constructor(readonly contents: ({ value: string } | string)[]) {}
}
export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}
export class FileSystemError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

type TextOp = { kind: "text"; uri: Uri; range: Range; text: string };
type CreateOp = { kind: "create"; uri: Uri; options: { overwrite?: boolean; ignoreIfExists?: boolean } };
type DeleteOp = { kind: "delete"; uri: Uri; options: { ignoreIfNotExists?: boolean } };
export class WorkspaceEdit {
  readonly ops: (TextOp | CreateOp | DeleteOp)[] = [];
  replace(uri: Uri, range: Range, text: string): void {
    this.ops.push({ kind: "text", uri, range, text });
  }
  insert(uri: Uri, at: Position, text: string): void {
    this.ops.push({ kind: "text", uri, range: new Range(at, at), text });
  }
  delete(uri: Uri, range: Range): void {
    this.ops.push({ kind: "text", uri, range, text: "" });
  }
  createFile(uri: Uri, options: { overwrite?: boolean; ignoreIfExists?: boolean } = {}): void {
    this.ops.push({ kind: "create", uri, options });
  }
  deleteFile(uri: Uri, options: { ignoreIfNotExists?: boolean } = {}): void {
    this.ops.push({ kind: "delete", uri, options });
  }
  get size(): number {
    return this.ops.length;
  }
}

/** A document: its text is the buffer (unsaved changes included); save() writes the real file. */
export class FakeDocument {
  version = 1;
  isDirty = false;
  isClosed = false;
  /** Texts before each applied WorkspaceEdit: one entry is one undo step. */
  readonly undoStack: string[] = [];
  constructor(
    readonly uri: Uri,
    private text: string,
    readonly languageId = "plaintext",
  ) {}
  get isUntitled(): boolean {
    return this.uri.scheme === "untitled";
  }
  get fileName(): string {
    return this.uri.fsPath;
  }
  get eol(): EndOfLine {
    return this.text.includes("\r\n") ? EndOfLine.CRLF : EndOfLine.LF;
  }
  get lineCount(): number {
    return this.text.split("\n").length;
  }
  getText(range?: Range): string {
    return range ? this.text.slice(this.offsetAt(range.start), this.offsetAt(range.end)) : this.text;
  }
  lineAt(line: number): { text: string; range: Range } {
    const text = (this.text.split("\n")[line] ?? "").replace(/\r$/, "");
    return { text, range: new Range(line, 0, line, text.length) };
  }
  offsetAt(p: Position): number {
    const lines = this.text.split("\n");
    let offset = 0;
    for (let i = 0; i < p.line && i < lines.length; i++) offset += lines[i]!.length + 1;
    return Math.min(offset + p.character, this.text.length);
  }
  positionAt(offset: number): Position {
    const before = this.text.slice(0, offset);
    const line = before.split("\n").length - 1;
    return new Position(line, offset - (before.lastIndexOf("\n") + 1));
  }
  /** Replaces the buffer (typing, or a reload from disk). */
  setText(text: string, dirty: boolean): void {
    this.text = text;
    this.version++;
    this.isDirty = dirty;
  }
  async save(): Promise<boolean> {
    if (this.isUntitled || this.uri.scheme !== "file") return false;
    writeFileSync(this.uri.fsPath, this.text);
    this.isDirty = false;
    current?.documentSaved.fire(this);
    return true;
  }
}

export interface FakeTerminal {
  name: string;
  output: string;
  disposed: boolean;
  /** Settles when the extension disposes the terminal. */
  gone: Promise<void>;
  /** The user closes the terminal. */
  close(): void;
  /** The user types into it. */
  type(data: string): void;
}

function fsError(err: unknown): never {
  const code = (err as NodeJS.ErrnoException).code;
  const map: Record<string, string> = {
    ENOENT: "FileNotFound",
    ENOTDIR: "FileNotFound",
    EISDIR: "FileIsADirectory",
    EEXIST: "FileExists",
  };
  throw new FileSystemError((err as Error).message, map[code ?? ""] ?? "Unknown");
}

function typeOf(abs: string): FileType {
  const l = lstatSync(abs);
  if (!l.isSymbolicLink()) return l.isDirectory() ? FileType.Directory : FileType.File;
  try {
    return (statSync(abs).isDirectory() ? FileType.Directory : FileType.File) | FileType.SymbolicLink;
  } catch {
    return FileType.Unknown | FileType.SymbolicLink;
  }
}

let current: FakeEditor | undefined;

export const languages = {
  getDiagnostics(uri?: Uri): any {
    const all = current?.diagnostics ?? new Map<string, { uri: Uri; list: Diagnostic[] }>();
    if (uri) return all.get(uri.toString())?.list ?? [];
    return [...all.values()].map((e) => [e.uri, e.list]);
  },
  onDidChangeDiagnostics(listener: (e: { uris: Uri[] }) => unknown): Disposable {
    return current ? current.diagnosticsChanged.event(listener) : new Disposable(() => {});
  },
};

/** The fake editor world of one test: documents, edits, diagnostics, terminals, diff tabs. */
export class FakeEditor {
  readonly documents = new Map<string, FakeDocument>();
  readonly diagnostics = new Map<string, { uri: Uri; list: Diagnostic[] }>();
  readonly diagnosticsChanged = new EventEmitter<{ uris: Uri[] }>();
  readonly documentChanged = new EventEmitter<{ document: FakeDocument }>();
  readonly documentSaved = new EventEmitter<FakeDocument>();
  /** Every WorkspaceEdit applied, in order. */
  readonly applied: WorkspaceEdit[] = [];
  readonly terminals: FakeTerminal[] = [];
  /** Open diff tabs (vscode.diff), closed by tabGroups.close. */
  readonly tabs: { input: TabInputTextDiff; label: string }[] = [];
  /** Every vscode.diff shown, in order. */
  readonly diffs: { left: Uri; right: Uri; title: string }[] = [];
  readonly config: Record<string, Record<string, unknown>> = {};
  /** Called after each applied edit, as a language server would react (e.g. publish diagnostics). */
  languageServer?: (doc: FakeDocument) => void;
  /** Context keys set with `setContext` (the title-bar actions' `when`). */
  readonly contexts: Record<string, unknown> = {};
  /** Every notification and input box shown, in order. */
  readonly prompts: { kind: "info" | "warning" | "input"; message: string; items: string[] }[] = [];
  /**
   * Answers the next prompts, in order: a string (an item or typed text), undefined
   * (dismissed), or a function of the prompt (to act, e.g. change the file, then answer).
   * A prompt with no answer queued stays open until the call is cancelled.
   */
  readonly answers: (
    string | undefined | ((p: { message: string; items: string[] }) => string | undefined | Promise<string | undefined>)
  )[] = [];
  private readonly providers = new Map<string, { provideTextDocumentContent(uri: Uri): string }>();
  private readonly disposables: Disposable[] = [];
  private untitled = 0;
  private readonly saved: Record<string, unknown> = {};

  constructor(readonly root: string) {
    current = this;
    const self = this;
    Object.assign(this.saved, { workspace: { ...workspace }, window: { ...window } });
    window.showInformationMessage = async (message: string, ...items: string[]) => this.answer("info", message, items);
    window.showWarningMessage = async (message: string, ...items: string[]) => this.answer("warning", message, items);
    window.showInputBox = async (
      options: { prompt?: string },
      token?: { isCancellationRequested: boolean; onCancellationRequested(l: () => void): unknown },
    ) => {
      const answer = this.answer("input", options.prompt ?? "", []);
      if (!token) return answer;
      // A cancelled token closes the input box, as VS Code does.
      return Promise.race([
        answer,
        new Promise<undefined>((resolve) =>
          token.isCancellationRequested ? resolve(undefined) : token.onCancellationRequested(() => resolve(undefined)),
        ),
      ]);
    };
    Object.assign(workspace, {
      workspaceFolders: [{ uri: Uri.file(root), name: nodePath.basename(root), index: 0 }],
      fs: {
        async stat(uri: Uri) {
          try {
            const s = statSync(uri.fsPath);
            return { type: typeOf(uri.fsPath), ctime: s.ctimeMs, mtime: s.mtimeMs, size: s.size };
          } catch (err) {
            fsError(err);
          }
        },
        async readFile(uri: Uri) {
          try {
            return new Uint8Array(readFileSync(uri.fsPath));
          } catch (err) {
            fsError(err);
          }
        },
        async readDirectory(uri: Uri) {
          try {
            return readdirSync(uri.fsPath).map((name) => [name, typeOf(nodePath.join(uri.fsPath, name))]);
          } catch (err) {
            fsError(err);
          }
        },
        async writeFile(uri: Uri, bytes: Uint8Array) {
          writeFileSync(uri.fsPath, bytes);
        },
      },
      openTextDocument: async (arg: Uri | { content?: string; language?: string }) => this.openTextDocument(arg),
      applyEdit: async (edit: WorkspaceEdit) => this.applyEdit(edit),
      findFiles: async (include: RelativePattern, exclude?: string | null, max?: number) =>
        this.findFiles(include, exclude ?? undefined, max),
      registerTextDocumentContentProvider: (
        scheme: string,
        provider: { provideTextDocumentContent(uri: Uri): string },
      ) => {
        this.providers.set(scheme, provider);
        return new Disposable(() => this.providers.delete(scheme));
      },
      onDidChangeTextDocument: this.documentChanged.event,
      onDidSaveTextDocument: this.documentSaved.event,
      getConfiguration: (section: string) => ({
        get: <T>(key: string, fallback?: T) => (this.config[section]?.[key] as T | undefined) ?? fallback,
      }),
    });
    Object.defineProperty(workspace, "textDocuments", {
      configurable: true,
      enumerable: true,
      get: () => [...self.documents.values()].filter((d) => !d.isClosed).map((d) => self.sync(d)),
    });
    Object.assign(window, {
      createTerminal: (options: { name: string; pty: any }) => this.createTerminal(options),
      tabGroups: {
        get all() {
          return [{ tabs: self.tabs }];
        },
        get activeTabGroup() {
          return { tabs: self.tabs, activeTab: self.tabs[self.tabs.length - 1] };
        },
        async close(tabs: unknown[]) {
          for (const t of tabs) {
            const i = self.tabs.indexOf(t as never);
            if (i !== -1) self.tabs.splice(i, 1);
          }
          return true;
        },
      },
    });
    this.disposables.push(
      commands.registerCommand("setContext", (key: string, value: unknown) => {
        this.contexts[key] = value;
      }),
      commands.registerCommand("vscode.diff", (left: Uri, right: Uri, title: string) => {
        this.diffs.push({ left, right, title });
        const input = new TabInputTextDiff(left, right);
        if (!this.tabs.some((t) => t.input.modified.toString() === right.toString()))
          this.tabs.push({ input, label: title });
      }),
    );
  }

  private answer(kind: "info" | "warning" | "input", message: string, items: string[]): Promise<string | undefined> {
    this.prompts.push({ kind, message, items });
    if (this.answers.length === 0) return new Promise(() => {});
    const next = this.answers.shift();
    return Promise.resolve(typeof next === "function" ? next({ message, items }) : next);
  }

  /** The document for a file path (opened from disk when needed); `text` makes it a dirty buffer. */
  async open(abs: string, text?: string): Promise<FakeDocument> {
    const doc = await this.openTextDocument(Uri.file(abs));
    if (text !== undefined) doc.setText(text, true);
    return doc;
  }

  /** Publishes a file's diagnostics, as a language server does. */
  setDiagnostics(uri: Uri, list: Diagnostic[]): void {
    this.diagnostics.set(uri.toString(), { uri, list });
    this.diagnosticsChanged.fire({ uris: [uri] });
  }

  /** Ctrl+Z: reverts the last applied edit of a document. */
  undo(doc: FakeDocument): void {
    const before = doc.undoStack.pop();
    if (before === undefined) throw new Error("nothing to undo");
    doc.setText(before, true);
  }

  /** Text a content provider (e.g. the proposal scheme) serves for a URI. */
  provided(uri: Uri): string | undefined {
    return this.providers.get(uri.scheme)?.provideTextDocumentContent(uri);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
    for (const key of Object.keys(workspace)) delete workspace[key];
    Object.assign(workspace, (this.saved as any).workspace);
    for (const key of Object.keys(window)) delete window[key];
    Object.assign(window, (this.saved as any).window);
    if (current === this) current = undefined;
  }

  /** A clean document follows its file on disk, as VS Code reloads it. */
  private sync(doc: FakeDocument): FakeDocument {
    if (!doc.isDirty && doc.uri.scheme === "file" && existsSync(doc.uri.fsPath)) {
      const disk = readFileSync(doc.uri.fsPath, "utf8");
      if (disk !== doc.getText()) doc.setText(disk, false);
    }
    return doc;
  }

  private async openTextDocument(arg: Uri | { content?: string; language?: string }): Promise<FakeDocument> {
    if (!(arg instanceof Uri)) {
      const uri = Uri.from({ scheme: "untitled", path: `Untitled-${++this.untitled}` });
      const doc = new FakeDocument(uri, arg.content ?? "", arg.language);
      if (arg.content) doc.isDirty = true;
      this.documents.set(uri.toString(), doc);
      return doc;
    }
    const key = arg.toString();
    const open = this.documents.get(key);
    if (open && !open.isClosed) return this.sync(open);
    let text: string;
    if (arg.scheme === "file") {
      try {
        text = readFileSync(arg.fsPath, "utf8").replace(/^\uFEFF/, "");
      } catch (err) {
        fsError(err);
      }
    } else {
      const provider = this.providers.get(arg.scheme);
      if (!provider) throw new Error(`no provider for ${arg.scheme}:`);
      text = provider.provideTextDocumentContent(arg);
    }
    const doc = new FakeDocument(arg, text);
    this.documents.set(key, doc);
    return doc;
  }

  private async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    for (const op of edit.ops) {
      if (op.kind === "create" && existsSync(op.uri.fsPath) && !op.options.overwrite && !op.options.ignoreIfExists)
        return false;
      if (op.kind === "delete" && !existsSync(op.uri.fsPath) && !op.options.ignoreIfNotExists) return false;
    }
    this.applied.push(edit);
    const touched = new Map<string, FakeDocument>();
    for (const op of edit.ops) {
      if (op.kind === "delete") {
        rmSync(op.uri.fsPath, { force: true });
        const doc = this.documents.get(op.uri.toString());
        if (doc) doc.isClosed = true;
        continue;
      }
      if (op.kind === "create") {
        if (existsSync(op.uri.fsPath) && op.options.ignoreIfExists) continue;
        mkdirSync(nodePath.dirname(op.uri.fsPath), { recursive: true });
        writeFileSync(op.uri.fsPath, "");
        const doc = new FakeDocument(op.uri, "");
        this.documents.set(op.uri.toString(), doc);
        continue;
      }
      const doc = await this.openTextDocument(op.uri);
      if (!touched.has(op.uri.toString())) doc.undoStack.push(doc.getText());
      touched.set(op.uri.toString(), doc);
      const text = doc.getText();
      doc.setText(text.slice(0, doc.offsetAt(op.range.start)) + op.text + text.slice(doc.offsetAt(op.range.end)), true);
    }
    for (const doc of touched.values()) {
      if (doc.isUntitled && doc.getText() === "") doc.isDirty = false;
      this.documentChanged.fire({ document: doc });
      const server = this.languageServer;
      if (server) setImmediate(() => server(doc));
    }
    return true;
  }

  private async findFiles(include: RelativePattern, exclude: string | undefined, max = Infinity): Promise<Uri[]> {
    const match = picomatch(include.pattern, { dot: true });
    // VS Code globs take `{a,b}` of whole patterns; picomatch wants them as a list.
    const alternatives =
      exclude?.startsWith("{") && exclude.endsWith("}")
        ? exclude.slice(1, -1).split(/(?<!\\),/)
        : exclude
          ? [exclude]
          : [];
    const excluded = alternatives.length
      ? picomatch(
          alternatives.map((a) => a.replace(/\\([{},])/g, "$1")),
          { dot: true },
        )
      : () => false;
    const base = include.baseUri.fsPath;
    const out: Uri[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (out.length >= max) return;
        const abs = nodePath.join(dir, entry.name);
        // As VS Code's search: the exclude is matched relative to the include's base.
        const rel = nodePath.relative(base, abs).split(nodePath.sep).join("/");
        if (excluded(rel)) continue;
        if (entry.isDirectory()) walk(abs);
        else if (match(rel)) out.push(Uri.file(abs));
      }
    };
    walk(base);
    return out;
  }

  private createTerminal(options: { name: string; pty: any }): unknown {
    return fakeTerminal(options, this.terminals);
  }
}

/** `window.createTerminal` for a pseudoterminal: records it (name, what it shows, disposed) in `into`. */
export function fakeTerminal(options: { name: string; pty: any }, into: FakeTerminal[]): unknown {
  let disposed!: () => void;
  const record: FakeTerminal = {
    name: options.name,
    output: "",
    disposed: false,
    gone: new Promise<void>((resolve) => (disposed = resolve)),
    close: () => options.pty.close(),
    type: (data) => options.pty.handleInput?.(data),
  };
  options.pty.onDidWrite((text: string) => (record.output += text));
  into.push(record);
  return {
    name: options.name,
    show() {
      options.pty.open?.(undefined);
    },
    dispose() {
      record.disposed = true;
      disposed();
    },
  };
}

/** Installs a fake editor over `root` behind the `vscode` fake; `dispose()` restores the rest. */
export function installEditor(root: string): FakeEditor {
  return new FakeEditor(root);
}
