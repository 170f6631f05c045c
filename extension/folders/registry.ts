import { realpathSync } from "node:fs";
import { rulesSettings } from "../config/rules-settings";
import * as vscode from "vscode";
import { filesExcluded } from "../config/files-exclude";
import type { ApprovalDecision } from "../../core/protocol";
import { BUILTIN_AGENTS } from "../../core/runtime/before-first-draw";
import type { LiveOptions, SessionApprovalRequest } from "../../core/runtime/types";
import type { Tool } from "../../core/tools/types";
import { ENV_PROFILE_ID, type ProviderConfig } from "../config/providers";
import type { RuntimeFactory, WorkspaceRuntimeApi } from "../../core/runtime";
import type { FolderMcpTools } from "../mcp/servers";

/**
 * One workspace folder's record: its folder, real root, runtime, editor-backed tools, MCP servers and what other
 * features keep for it (the chat's live state). FolderRegistry makes it when the folder opens and disposes all of it when the folder
 * goes or the extension deactivates: no other part of the extension follows folder changes to make or drop its own.
 */
export interface OpenFolder {
  readonly folder: vscode.WorkspaceFolder;
  /** The folder's URI string: how the chat, the tools and the webview name the folder. */
  readonly key: string;
  /** The folder's real path (links resolved): the runtime's root. */
  readonly root: string;
  readonly runtime: WorkspaceRuntimeApi;
  /** The folder's editor-backed tools and their approver (extension/tools); undefined where none are given. */
  readonly tools: FolderToolSet | undefined;
  /** The folder's MCP servers (extension/mcp), started at the first run that needs them; undefined where none are given. */
  readonly mcp: FolderMcpTools | undefined;
  /** What features attached for this folder (`attach`), by name ("chat": the chat's live state), disposed with it. */
  readonly parts: ReadonlyMap<string, vscode.Disposable>;
}

/** A folder's tools as its runtime uses them (extension/tools makes them; made at the folder's first run). */
export interface FolderToolSet {
  tools(): readonly Tool[];
  approve?(request: SessionApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
  /** Ends the tools' terminals and process groups. */
  dispose(): Promise<void> | void;
}

/** What other features plug into every folder's record. */
export interface FolderHooks {
  /** The folder's editor-backed tools and their approver (extension/tools). */
  tools?: (folder: vscode.WorkspaceFolder, root: string) => FolderToolSet;
  /** The folder's MCP servers (extension/mcp). */
  mcp?: (folder: vscode.WorkspaceFolder) => FolderMcpTools;
}

/** Why nothing runs while the workspace is untrusted (the runtime's RestrictedModeError wraps it). */
export const RESTRICTED_REASON =
  "this workspace is not trusted, so sessions can be listed and read but no model call, edit, command or MCP server runs";

/** VS Code waits a few seconds for deactivate(); closing stops waiting before that. */
const CLOSE_BUDGET_MS = 4000;

/**
 * One core runtime per workspace folder: created when a folder is added, closed (runs
 * cancelled, sessions flushed, locks released) when it is removed or the extension
 * deactivates.
 */
export class FolderRegistry implements vscode.Disposable {
  private readonly byUri = new Map<string, OpenFolder & { parts: Map<string, vscode.Disposable> }>();
  /** The features attached to every record (`attach`), by name. */
  private readonly features = new Map<string, (entry: OpenFolder) => vscode.Disposable>();
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
      this.retire(entry);
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
      const key = folder.uri.toString();
      const tools = this.hooks.tools?.(folder, root);
      const mcp = this.hooks.mcp?.(folder);
      const entry = { folder, key, root, tools, mcp, runtime: this.create(folder, root, tools, mcp), parts: new Map() };
      for (const [name, open] of this.features) this.openPart(entry, name, open);
      this.byUri.set(key, entry);
      made.push(entry);
    }
    if (made.length > 0 || gone.length > 0) this.changed.fire({ added: made, removed: gone });
  }

  /**
   * Runs `open` for every open folder now and for each folder that opens later; what it returns is kept in the
   * folder's record under `name` and disposed with it. Disposing the result disposes every such part.
   */
  attach(name: string, open: (entry: OpenFolder) => vscode.Disposable): vscode.Disposable {
    if (this.features.has(name)) throw new Error(`a feature named ${name} is attached already`);
    this.features.set(name, open);
    for (const entry of this.byUri.values()) this.openPart(entry, name, open);
    return new vscode.Disposable(() => {
      if (this.features.get(name) !== open) return;
      this.features.delete(name);
      for (const entry of this.byUri.values()) this.closePart(entry, name);
    });
  }

  private openPart(
    entry: OpenFolder & { parts: Map<string, vscode.Disposable> },
    name: string,
    open: (entry: OpenFolder) => vscode.Disposable,
  ): void {
    try {
      entry.parts.set(name, open(entry));
    } catch (error) {
      this.log(`${name} for ${entry.folder.name}: ${(error as Error).message}`);
    }
  }

  private closePart(entry: OpenFolder & { parts: Map<string, vscode.Disposable> }, name: string): void {
    const part = entry.parts.get(name);
    entry.parts.delete(name);
    try {
      part?.dispose();
    } catch (error) {
      this.log(`${name} for ${entry.folder.name}: ${(error as Error).message}`);
    }
  }

  /** A folder went (or the extension deactivates): its parts, MCP servers, tools and runtime end here. */
  private retire(entry: OpenFolder & { parts: Map<string, vscode.Disposable> }): void {
    for (const name of [...entry.parts.keys()]) this.closePart(entry, name);
    const { folder, runtime, tools, mcp } = entry;
    this.track(runtime.close().catch((e) => this.log(`closing ${folder.name}: ${(e as Error).message}`)));
    if (mcp)
      this.track(mcp.dispose().catch((e) => this.log(`closing ${folder.name}'s MCP servers: ${(e as Error).message}`)));
    if (!tools) return;
    const toolsGone = (e: unknown) => this.log(`closing ${folder.name}'s tools: ${(e as Error).message}`);
    try {
      this.track(Promise.resolve(tools.dispose()).catch(toolsGone));
    } catch (error) {
      toolsGone(error);
    }
  }

  private create(
    folder: vscode.WorkspaceFolder,
    root: string,
    tools: FolderToolSet | undefined,
    mcp: FolderMcpTools | undefined,
  ): WorkspaceRuntimeApi {
    return this.factory({
      root,
      providers: () => this.config.profiles(),
      model: () => this.config.selection(),
      approval: () => this.config.current.approval,
      tools: () => tools?.tools() ?? [],
      ...this.liveOptions(),
      restricted: () => this.restricted(),
      rules: rulesSettings(folder),
      checkpointExclude: () => filesExcluded(folder),
      // Errors name where the failing server is configured: the environment profile, or the setting.
      providerSetting: (id, about) =>
        id !== ENV_PROFILE_ID
          ? "downcity.providers"
          : `the ${about === "window" ? "DOWNCITY_CONTEXT_WINDOW" : "DOWNCITY_BASE_URL"} environment variable`,
      ...(this.searchIndexDir && { searchIndexDir: this.searchIndexDir }),
      ...(tools?.approve && { approve: (request, signal) => tools.approve!(request, signal) }),
      ...(mcp && { mcpTools: () => mcp.tools() }),
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
    for (const entry of entries) this.retire(entry);
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<void>((resolve) => (timer = setTimeout(resolve, budgetMs)));
    await Promise.race([Promise.all(this.closing), budget]);
    clearTimeout(timer);
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
    this.changed.dispose();
    this.applied.dispose();
    this.features.clear();
    void this.close();
  }
}
