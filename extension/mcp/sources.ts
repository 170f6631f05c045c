import { join } from "node:path";
import * as vscode from "vscode";
import { mergeMcpConfigs, parseMcpConfig, type ParsedMcpConfig } from "../../core/runtime/mcp";
import { readMcpFile, WORKSPACE_MCP_FILE } from "../../core/runtime/mcp";

export const SETTING = "downcity.mcp.servers";

/** `downcity.mcp.startTimeoutSeconds` of the folder, read at each server start. */
export const startTimeoutMs = (folder: vscode.WorkspaceFolder): number =>
  secondsSetting(folder, "startTimeoutSeconds", 30);

/** `downcity.mcp.firstRunWaitSeconds` of the folder, read at each run: how long it waits for a starting server. */
export const firstRunWaitMs = (folder: vscode.WorkspaceFolder): number =>
  secondsSetting(folder, "firstRunWaitSeconds", 3);

/** A `downcity.mcp.<key>` number of seconds, in ms; below 1 s or not a number is the default. */
function secondsSetting(folder: vscode.WorkspaceFolder, key: string, fallback: number): number {
  const seconds = vscode.workspace.getConfiguration("downcity", folder.uri).get<number>(`mcp.${key}`, fallback);
  return (Number.isFinite(seconds) && seconds >= 1 ? seconds : fallback) * 1000;
}

/**
 * A folder's MCP configuration, VS Code's way: the user's `downcity.mcp.servers` (trusted),
 * then the setting's workspace values and the folder's `.vscode/mcp.json` (both may come
 * with a clone: untrusted, each server needs consent). A later server of the same name wins.
 */
export async function readFolderConfig(folder: vscode.WorkspaceFolder, root: string): Promise<ParsedMcpConfig> {
  const inspected = vscode.workspace.getConfiguration("downcity", folder.uri).inspect<unknown>("mcp.servers");
  const parts: ParsedMcpConfig[] = [];
  if (inspected?.globalValue !== undefined)
    parts.push(parseMcpConfig(inspected.globalValue, { kind: "user", label: `user settings (${SETTING})` }));
  if (inspected?.workspaceValue !== undefined)
    parts.push(
      parseMcpConfig(inspected.workspaceValue, { kind: "workspace", label: `workspace settings (${SETTING})` }),
    );
  if (inspected?.workspaceFolderValue !== undefined)
    parts.push(
      parseMcpConfig(inspected.workspaceFolderValue, { kind: "workspace", label: `folder settings (${SETTING})` }),
    );
  parts.push(await readMcpFile(join(root, WORKSPACE_MCP_FILE), { kind: "workspace", label: WORKSPACE_MCP_FILE }));
  return mergeMcpConfigs(parts);
}
