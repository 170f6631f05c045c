import { realpathSync } from "node:fs";
import { rulesSettings } from "../config/rules-settings";
import * as vscode from "vscode";
import { filesExcluded } from "../config/files-exclude";
import type { ApprovalDecision } from "../../core/protocol";
import { BUILTIN_AGENTS } from "../../core/runtime/agents";
import type { LiveOptions, SessionApprovalRequest, WorkspaceRuntimeOptions } from "../../core/runtime/types";
import type { Tool } from "../../core/tools/types";
import { ENV_PROFILE_ID, type ProviderConfig } from "../config/providers";
import type { RuntimeFactory, WorkspaceRuntimeApi } from "../../core/runtime";

/** One workspace folder and the core runtime that owns its `.downcity/` store. */
export interface OpenFolder {
  readonly folder: vscode.WorkspaceFolder;
  readonly runtime: WorkspaceRuntimeApi;
}

/** What other features plug into every runtime (the editor-backed tools and their approval UI). */
export interface FolderHooks {
  tools?: (folder: vscode.WorkspaceFolder) => readonly Tool[];
  approve?: (
    folder: vscode.WorkspaceFolder,
    request: SessionApprovalRequest,
    signal: AbortSignal,
  ) => Promise<ApprovalDecision>;
  /** The folder's MCP servers' tools (extension/mcp), started at the first run that needs them. */
  mcpTools?: (folder: vscode.WorkspaceFolder) => ReturnType<NonNullable<WorkspaceRuntimeOptions["mcpTools"]>>;
}

/** Why nothing runs while the workspace is untrusted (the runtime's RestrictedModeError wraps it). */
export const RESTRICTED_REASON =
  "this workspace is not trusted, so sessions can be listed and read but no model call, edit or command runs";

/** VS Code waits a few seconds for deactivate(); closing stops waiting before that. */
const CLOSE_BUDGET_MS = 4000;

/**
 * One core runtime per workspace folder: created when a folder is added, closed (runs
 * cancelled, sessions flushed, locks released) when it is removed or the extension
 * deactivates.
 */
export class FolderRegistry implements vscode.Disposable {
  private readonly byUri = new Map<string, OpenFolder>();
  private readonly changed = new vscode.EventEmitter<{ added: OpenFolder[]; removed: OpenFolder[] }>();
  readonly onDidChange = this.changed.event;
  private readonly applied = new vscode.EventEmitter<void>();
  /** Settings, keys or the selected model changed, and every folder's runtime has the new settings. */
  readonly onDidApplyConfig = this.applied.event;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly closing = new Set<Promise<void>>();

  constructor(
    private readonly factory: RuntimeFactory,
    private readonly config: ProviderConfig,
    private readonly hooks: FolderHooks = {},
    private readonly log: (line: string) => void = () => {},
    /** The session search index's directory, outside every workspace (VS Code's storageUri). */
    private readonly searchIndexDir?: string,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeWorkspaceFolders((e) => this.update(e.added, e.removed)),
      // Providers, the model, approvals and tools are read per run already; agents and
      // compaction are handed over here, so open folders take them without a reload.
      config.onDidChange(() => {
        const options = this.liveOptions();
        for (const { runtime } of this.byUri.values()) runtime.updateOptions(options);
        this.applied.fire();
      }),
    );
    this.update(vscode.workspace.workspaceFolders ?? [], []);
  }

  /** Why nothing may run now, or undefined when the workspace is trusted (read live, so a grant applies at once). */
  restricted(): string | undefined {
    return vscode.workspace.isTrusted ? undefined : RESTRICTED_REASON;
  }

  all(): OpenFolder[] {
    return [...this.byUri.values()].sort((a, b) => a.folder.index - b.folder.index);
  }

  get(folder: vscode.WorkspaceFolder | vscode.Uri): OpenFolder | undefined {
    return this.byUri.get(("uri" in folder ? folder.uri : folder).toString());
  }

  private update(added: readonly vscode.WorkspaceFolder[], removed: readonly vscode.WorkspaceFolder[]): void {
    const gone: OpenFolder[] = [];
    for (const folder of removed) {
      const entry = this.byUri.get(folder.uri.toString());
      if (!entry) continue;
      this.byUri.delete(folder.uri.toString());
      gone.push(entry);
      this.track(entry.runtime.close().catch((e) => this.log(`closing ${folder.name}: ${(e as Error).message}`)));
    }
    const made: OpenFolder[] = [];
    for (const folder of added) {
      // The store lives on disk beside the files; virtual folders have none.
      if (folder.uri.scheme !== "file" || this.byUri.has(folder.uri.toString())) continue;
      let root: string;
      try {
        root = realpathSync(folder.uri.fsPath);
      } catch (error) {
        this.log(`folder ${folder.name} is not readable: ${(error as Error).message}`);
        continue;
      }
      const entry: OpenFolder = { folder, runtime: this.create(folder, root) };
      this.byUri.set(folder.uri.toString(), entry);
      made.push(entry);
    }
    if (made.length > 0 || gone.length > 0) this.changed.fire({ added: made, removed: gone });
  }

  private create(folder: vscode.WorkspaceFolder, root: string): WorkspaceRuntimeApi {
    const { approve, tools, mcpTools } = this.hooks;
    return this.factory({
      root,
      providers: () => this.config.profiles(),
      model: () => this.config.selection(),
      approval: () => this.config.current.approval,
      tools: () => tools?.(folder) ?? [],
      ...this.liveOptions(),
      restricted: () => this.restricted(),
      rules: rulesSettings(folder),
      checkpointExclude: () => filesExcluded(folder),
      // Errors name where the failing server is configured: the environment profile, or the setting.
      providerSetting: (id) =>
        id === ENV_PROFILE_ID
          ? "the DOWNCITY_BASE_URL / DOWNCITY_CONTEXT_WINDOW environment variables"
          : "downcity.providers",
      ...(this.searchIndexDir && { searchIndexDir: this.searchIndexDir }),
      ...(approve && { approve: (request, signal) => approve(folder, request, signal) }),
      ...(mcpTools && { mcpTools: () => mcpTools(folder) }),
    });
  }

  private liveOptions(): Required<LiveOptions> {
    const { agents, compaction } = this.config.current;
    // Built-in agents first; a setting may add agents, not replace `code` or `ask`.
    return {
      agents: [...BUILTIN_AGENTS, ...agents.filter((a) => !BUILTIN_AGENTS.some((b) => b.id === a.id))],
      compaction,
    };
  }

  private track(pending: Promise<void>): void {
    this.closing.add(pending);
    void pending.finally(() => this.closing.delete(pending));
  }

  /** Deactivate: cancel every run, flush every session, release every lock, within VS Code's budget. */
  async close(budgetMs = CLOSE_BUDGET_MS): Promise<void> {
    const entries = [...this.byUri.values()];
    this.byUri.clear();
    for (const { runtime } of entries) runtime.cancelAll();
    for (const { folder, runtime } of entries)
      this.track(runtime.close().catch((e) => this.log(`closing ${folder.name}: ${(e as Error).message}`)));
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => (timer = setTimeout(resolve, budgetMs)));
    await Promise.race([Promise.all(this.closing), budget]);
    clearTimeout(timer);
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
    this.changed.dispose();
    this.applied.dispose();
    void this.close();
  }
}
