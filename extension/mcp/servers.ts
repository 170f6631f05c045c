import { realpathSync } from "node:fs";
import * as vscode from "vscode";
import { McpManager, type McpTools } from "../../core/runtime/mcp";
import { WORKSPACE_MCP_FILE } from "../../core/runtime/mcp";
import { McpInputs } from "./inputs";
import { firstRunWaitMs, readFolderConfig, SETTING, startTimeoutMs } from "./sources";
import { McpTrust } from "./trust";

export interface FolderMcp {
  folder: vscode.WorkspaceFolder;
  root: string;
  manager: McpManager;
  /** The first read of the folder's configuration. */
  loaded: Promise<void>;
}

/** One folder's MCP servers as its record holds them (`McpServers.forFolder`). */
export interface FolderMcpTools {
  /** The hook the folder's runtime calls when a run builds its agent: starts what never started. */
  tools(): Promise<McpTools>;
  /** Stops the folder's servers. */
  dispose(): Promise<void>;
}

/** Why no MCP server starts while the workspace is untrusted. */
export const MCP_RESTRICTED = "Restricted Mode starts no MCP server";

/**
 * The MCP servers of every workspace folder: one manager per folder, fed by the setting
 * and the folder's `.vscode/mcp.json` (watched), logging to the "Downcity MCP" channel.
 * Servers start when a run first asks for tools (`tools(folder)`), never at activation.
 */
export class McpServers implements vscode.Disposable {
  private readonly folders = new Map<string, FolderMcp>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  readonly trust: McpTrust;
  readonly inputs: McpInputs;

  constructor(
    context: Pick<vscode.ExtensionContext, "workspaceState" | "secrets" | "storageUri">,
    readonly output: vscode.OutputChannel,
  ) {
    this.trust = McpTrust.of(context, (message) => output.appendLine(`[trust] ${message}`));
    this.inputs = new McpInputs(context.secrets);
    const watcher = vscode.workspace.createFileSystemWatcher(`**/${WORKSPACE_MCP_FILE.replace(/\\/g, "/")}`);
    const reload = (uri: vscode.Uri) => {
      const folder = vscode.workspace.getWorkspaceFolder(uri);
      if (folder) void this.reload(folder);
    };
    this.subscriptions.push(
      watcher,
      watcher.onDidCreate(reload),
      watcher.onDidChange(reload),
      watcher.onDidDelete(reload),
      vscode.workspace.onDidChangeConfiguration((e) => {
        for (const f of this.folders.values())
          if (e.affectsConfiguration(SETTING, f.folder.uri)) void this.reload(f.folder);
      }),
    );
  }

  /**
   * A folder's part of its record (FolderRegistry makes it when the folder opens and disposes it when the folder goes):
   * the tools its runtime asks for, and the end of its servers. The manager itself is still made at the first use.
   */
  forFolder(folder: vscode.WorkspaceFolder): FolderMcpTools {
    return { tools: () => this.tools(folder), dispose: () => this.forget(folder) };
  }

  /** The hook the folder's runtime calls when a run builds its agent: starts what never started. */
  async tools(folder: vscode.WorkspaceFolder): Promise<McpTools> {
    const f = await this.folder(folder);
    return f ? f.manager.tools() : { tools: [], notices: [] };
  }

  /** The folder's manager, created (with its configuration read) on first use. */
  async folder(folder: vscode.WorkspaceFolder): Promise<FolderMcp | undefined> {
    const key = folder.uri.toString();
    const existing = this.folders.get(key);
    if (existing) {
      await existing.loaded;
      return existing;
    }
    if (folder.uri.scheme !== "file") return undefined;
    let root: string;
    try {
      root = realpathSync(folder.uri.fsPath);
    } catch {
      return undefined;
    }
    const manager = new McpManager({
      root,
      firstRunWaitMs: () => firstRunWaitMs(folder),
      startTimeoutMs: () => startTimeoutMs(folder),
      log: {
        stderr: (server, line) => this.output.appendLine(`[${server}] ${line}`),
        info: (server, message) => this.output.appendLine(`[${server}] ${message}`),
      },
      consent: (request) => this.trust.ask(root, request),
      input: (input, server, source) => this.inputs.value(root, source, server, input),
      restricted: () => (vscode.workspace.isTrusted ? undefined : MCP_RESTRICTED),
      alwaysAllowed: (server, tool) => this.trust.alwaysAllowed(root, server, tool),
      allowAlways: async (server, tool, what) => {
        await this.trust.allowAlways(root, server, what === "server" ? undefined : tool);
        this.output.appendLine(
          `[${server}] ${what === "server" ? "all tools" : `"${tool}"`} always allowed in ${root}`,
        );
        this.changed.fire();
      },
    });
    const entry: FolderMcp = { folder, root, manager, loaded: Promise.resolve() };
    this.folders.set(key, entry);
    manager.onDidChange(() => this.changed.fire());
    // Two runs starting at once both wait for the first read of the configuration.
    entry.loaded = this.load(entry);
    await entry.loaded;
    return entry;
  }

  all(): FolderMcp[] {
    return [...this.folders.values()];
  }

  /** The folder went: its servers stop, and a later use (the folder added again) reads its configuration anew. */
  private forget(folder: vscode.WorkspaceFolder): Promise<void> {
    const f = this.folders.get(folder.uri.toString());
    this.folders.delete(folder.uri.toString());
    return f ? f.manager.close() : Promise.resolve();
  }

  private async reload(folder: vscode.WorkspaceFolder): Promise<void> {
    const f = this.folders.get(folder.uri.toString());
    if (f) await this.load(f);
  }

  private async load(f: FolderMcp): Promise<void> {
    const config = await readFolderConfig(f.folder, f.root);
    for (const p of config.problems)
      this.output.appendLine(`[config] ${p.source.label}${p.server ? ` (${p.server})` : ""}: ${p.message}`);
    f.manager.setConfig(config);
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
    this.changed.dispose();
    for (const f of this.folders.values()) void f.manager.close();
    this.folders.clear();
  }
}
