import * as vscode from "vscode";
import { Sessions } from "../../../core/storage";
import type { WorkspaceRuntimeOptions } from "../../../core/runtime/types";
import { activate, deactivate } from "../../../extension/activate";
import { useSeams } from "../../../extension/seams";
import { createWorkspaceRuntime, type WorkspaceRuntimeApi, type RuntimeFactory } from "../../../core/runtime";
import * as fake from "../vscode-fake";

/** A workspace folder of the fake. */
export function folder(path: string, index = 0, name = `folder${index}`): vscode.WorkspaceFolder {
  return { uri: vscode.Uri.file(path), name, index };
}

/** Sets the window's folders and fires the change as VS Code does. */
export function setFolders(next: vscode.WorkspaceFolder[]): void {
  const before: vscode.WorkspaceFolder[] = vscode.workspace.workspaceFolders
    ? [...vscode.workspace.workspaceFolders]
    : [];
  (vscode.workspace as { workspaceFolders: unknown }).workspaceFolders = next;
  const key = (f: vscode.WorkspaceFolder) => f.uri.toString();
  fake.fire.workspaceFolders.fire({
    added: next.filter((f) => !before.some((b) => key(b) === key(f))),
    removed: before.filter((b) => !next.some((f) => key(b) === key(f))),
  });
}

export class MemorySecrets implements vscode.SecretStorage {
  readonly values = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.SecretStorageChangeEvent>();
  readonly onDidChange = this.changed.event;
  async get(key: string) {
    return this.values.get(key);
  }
  async keys() {
    return [...this.values.keys()];
  }
  async store(key: string, value: string) {
    this.values.set(key, value);
    this.changed.fire({ key });
  }
  async delete(key: string) {
    this.values.delete(key);
    this.changed.fire({ key });
  }
}

export class MemoryMemento implements vscode.Memento {
  private readonly values = new Map<string, unknown>();
  keys() {
    return [...this.values.keys()];
  }
  get<T>(key: string, fallback?: T): T | undefined {
    return (this.values.has(key) ? this.values.get(key) : fallback) as T | undefined;
  }
  async update(key: string, value: unknown) {
    if (value === undefined) this.values.delete(key);
    else this.values.set(key, value);
  }
}

export function fakeContext() {
  const context = {
    subscriptions: [] as { dispose(): unknown }[],
    secrets: new MemorySecrets(),
    workspaceState: new MemoryMemento(),
    globalState: new MemoryMemento(),
  };
  return context as typeof context & vscode.ExtensionContext;
}

/** The real factory, counting what the extension asks of each runtime. */
export function countingFactory(base: RuntimeFactory = createWorkspaceRuntime) {
  const made: { options: WorkspaceRuntimeOptions; runtime: WorkspaceRuntimeApi; lists: number; closed: boolean }[] = [];
  const factory: RuntimeFactory = (options) => {
    const runtime = base(options);
    const record = { options, runtime, lists: 0, closed: false };
    const list = runtime.list.bind(runtime);
    const close = runtime.close.bind(runtime);
    runtime.list = (filter) => (record.lists++, list(filter));
    runtime.close = () => ((record.closed = true), close());
    made.push(record);
    return runtime;
  };
  return { factory, made };
}

/** Writes `count` small sessions to a folder's store with the store itself, as another process would. */
export async function storeSessions(
  root: string,
  count: number,
  options: { agentId?: string; start?: number } = {},
): Promise<string[]> {
  const sessions = new Sessions({ root, batchWindowMs: 10_000, metaIntervalMs: 0 });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `session-${(options.start ?? 0) + i}`;
    const s = sessions.create({ id, agentId: options.agentId ?? "code" });
    s.append("user/message", { content: [{ type: "text", text: `question ${i}` }] }, { surface: "append" });
    s.append("session/title", { title: `Stored ${i}`, messageSeqs: [1], source: { kind: "fallback" } });
    await sessions.flush(s);
    await sessions.store.dispose(s);
    await sessions.persistence.release(s);
    ids.push(id);
  }
  await sessions.close();
  return ids;
}

/** Sets a fake answer for one vscode.window prompt and records what was asked. */
export function answer(
  name:
    | "showQuickPick"
    | "showInputBox"
    | "showSaveDialog"
    | "showWarningMessage"
    | "showInformationMessage"
    | "showErrorMessage",
  fn: (...args: any[]) => unknown,
) {
  const calls: any[][] = [];
  fake.window[name] = async (...args: any[]) => (calls.push(args), fn(...args));
  return calls;
}

/** Sets `downcity.*` values (undefined removes one) and fires the change as VS Code does. */
export function configure(values: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) delete fake.settings[key];
    else fake.settings[key] = value;
  }
  const keys = Object.keys(values);
  fake.fire.configuration.fire({
    affectsConfiguration: (section: string) => keys.some((k) => k === section || k.startsWith(`${section}.`)),
  });
}

/** Activates the extension on one folder whose provider comes from the environment (an OpenAI-style server at `baseURL`); deactivated after the test. */
export async function activateWithEnvProvider(t: { after(fn: () => unknown): void }, root: string, baseURL: string) {
  setFolders([folder(root, 0, "proj")]);
  const context = fakeContext();
  const env = { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: baseURL, DOWNCITY_MODEL: "m1" };
  const host = (useSeams({ env, openInChat: async () => {}, restAtOnce: true }), await activate(context));
  t.after(async () => {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  });
  await host.tree.ready;
  return { host, context };
}
