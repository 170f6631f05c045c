import * as vscode from "vscode";
import type { McpServerStatus } from "../../core/runtime/mcp";
import type { FolderMcp, McpServers } from "./servers";

export const MCP_SERVERS_COMMAND = "downcity.mcpServers";

const STATE_ICON: Record<McpServerStatus["state"], string> = {
  running: "$(pass-filled)",
  starting: "$(loading~spin)",
  restarting: "$(sync~spin)",
  stopped: "$(circle-outline)",
  failed: "$(error)",
};

type ServerItem = vscode.QuickPickItem & { f: FolderMcp; status: McpServerStatus };
type ActionItem = vscode.QuickPickItem & { run: () => Promise<unknown> };

/**
 * "Downcity: MCP Servers": every folder's servers with their state, tools and last error;
 * picking one offers Start / Stop / Restart, "always allow" for the server or one tool,
 * and the output channel.
 */
export async function showMcpServers(servers: McpServers): Promise<void> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) await servers.folder(folder);
  const items: ServerItem[] = servers.all().flatMap((f) =>
    f.manager.status().map((status) => ({
      f,
      status,
      label: `${STATE_ICON[status.state]} ${status.name}`,
      description: `${status.state}${status.state === "running" ? ` · ${status.tools.length} tool${status.tools.length === 1 ? "" : "s"}` : ""}${servers.trust.isAlways(f.root, status.name) ? " · always allowed" : ""}${(vscode.workspace.workspaceFolders?.length ?? 0) > 1 ? ` · ${f.folder.name}` : ""}`,
      detail: [
        `${status.source}: ${status.launch}`,
        ...(status.disabledTools.length
          ? [`disabled: ${status.disabledTools.map((d) => `${d.tool} (${d.reason})`).join("; ")}`]
          : []),
        ...(status.lastError ? [`last error: ${firstLine(status.lastError)}`] : []),
      ].join(" — "),
    })),
  );
  const problems = servers.all().flatMap((f) => f.manager.configProblems());
  if (items.length === 0) {
    const open = await vscode.window.showInformationMessage(
      problems.length
        ? `No MCP server could be read: ${problems[0]!.message}`
        : "No MCP servers are configured. Add them to .vscode/mcp.json or the downcity.mcp.servers setting.",
      "Open Settings",
    );
    if (open) await vscode.commands.executeCommand("workbench.action.openSettings", "downcity.mcp.servers");
    return;
  }
  const picked = await vscode.window.showQuickPick(items, {
    title: "Downcity: MCP Servers",
    placeHolder: "Pick a server to start, stop or restart it",
    matchOnDetail: true,
  });
  if (!picked) return;
  await serverActions(servers, picked);
}

async function serverActions(servers: McpServers, item: ServerItem): Promise<void> {
  const { f, status } = item;
  const { manager, root } = f;
  const run = (what: string, op: () => Promise<void>) => async () => {
    try {
      await op();
    } catch (err) {
      void vscode.window.showErrorMessage(
        `Downcity: could not ${what} the MCP server "${status.name}": ${firstLine(err instanceof Error ? err.message : String(err))}`,
      );
    }
  };
  const always = servers.trust.isAlways(root, status.name);
  const actions: ActionItem[] = [
    ...(status.state === "running"
      ? []
      : [{ label: "$(play) Start", run: run("start", () => manager.start(status.name)) }]),
    ...(status.state === "stopped"
      ? []
      : [{ label: "$(debug-stop) Stop", run: run("stop", () => manager.stop(status.name)) }]),
    { label: "$(debug-restart) Restart", run: run("restart", () => manager.restart(status.name)) },
    {
      label: always ? "$(shield) Ask before each call again" : "$(unlock) Always allow this server's tools",
      description: "in this folder",
      run: () => servers.trust.toggleAlways(root, status.name),
    },
    ...status.tools.map((name) => {
      const tool = name.replace(/^mcp__.*?__/, "");
      const on = servers.trust.isAlways(root, `${status.name}/${tool}`);
      return {
        label: `$(tools) ${tool}`,
        description: on ? "always allowed — pick to ask again" : "pick to always allow",
        run: () => servers.trust.toggleAlways(root, `${status.name}/${tool}`),
      };
    }),
    { label: "$(output) Show Output", run: async () => servers.output.show(true) },
  ];
  const action = await vscode.window.showQuickPick(actions, {
    title: `MCP server "${status.name}" (${status.state})`,
    placeHolder: status.lastError ? firstLine(status.lastError) : status.launch,
  });
  await action?.run();
}

const firstLine = (s: string) => s.split("\n")[0]!;
