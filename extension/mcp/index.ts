import * as vscode from "vscode";
import { MCP_SERVERS_COMMAND, showMcpServers } from "./picker";
import { McpServers } from "./servers";

export { McpServers } from "./servers";

/** The MCP feature: the "Downcity MCP" output channel, the servers of every folder, and "Downcity: MCP Servers". */
export function registerMcp(context: Pick<vscode.ExtensionContext, "workspaceState" | "secrets" | "storageUri">): {
  servers: McpServers;
  disposable: vscode.Disposable;
} {
  const output = vscode.window.createOutputChannel("Downcity MCP");
  const servers = new McpServers(context, output);
  const command = vscode.commands.registerCommand(MCP_SERVERS_COMMAND, () => showMcpServers(servers));
  return { servers, disposable: vscode.Disposable.from(servers, command, output) };
}
