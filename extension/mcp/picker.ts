import * as vscode from "vscode";
import type { McpServerStatus } from "../../core/runtime/mcp";
import { MCP_RESTRICTED, type FolderMcp, type McpServers } from "./servers";

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
 * "Downcity: MCP Servers": every folder's servers with their state, tools and last error,
 * kept live while open (a server starting, running, crashing or restarting changes its
 * row at once); picking one offers Start / Stop / Restart, "always allow" for the server
 * or one tool, and the output channel, then comes back to the list.
 */
export async function showMcpServers(servers: McpServers): Promise<void> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) await servers.folder(folder);
  if (serverItems(servers).length === 0) {
    const problems = servers.all().flatMap((f) => f.manager.configProblems());
    const open = await vscode.window.showInformationMessage(
      problems.length
        ? `No MCP server could be read: ${problems[0]!.message}`
        : "No MCP servers are configured. Add them to .vscode/mcp.json or the downcity.mcp.servers setting.",
      "Open Settings",
    );
    if (open) await vscode.commands.executeCommand("workbench.action.openSettings", "downcity.mcp.servers");
    return;
  }
  for (;;) {
    const picked = await pickServer(servers);
    if (!picked) return;
    if (!(await serverActions(servers, picked))) return;
  }
}

/** The live list: rebuilt on every state change of any server, keeping the row the user is on. */
function pickServer(servers: McpServers): Promise<ServerItem | undefined> {
  const pick = vscode.window.createQuickPick<ServerItem>();
  pick.title = "Downcity: MCP Servers";
  pick.matchOnDetail = true;
  const render = () => {
    // Said where the user looks for why nothing starts; a grant of trust while open changes it.
    pick.placeholder = vscode.workspace.isTrusted
      ? "Pick a server to start, stop or restart it"
      : `${MCP_RESTRICTED}: trust the workspace to start them`;
    const active = pick.activeItems[0];
    const items = serverItems(servers);
    pick.items = items;
    const same = active && items.find((i) => i.f === active.f && i.status.name === active.status.name);
    if (same) pick.activeItems = [same];
  };
  render();
  const subscriptions = [servers.onDidChange(render), vscode.workspace.onDidGrantWorkspaceTrust(render)];
  return new Promise((resolve) => {
    subscriptions.push(
      pick.onDidAccept(() => {
        resolve(pick.selectedItems[0]);
        pick.hide();
      }),
      pick.onDidHide(() => {
        resolve(undefined);
        subscriptions.forEach((d) => d.dispose());
        pick.dispose();
      }),
    );
    pick.show();
  });
}

function serverItems(servers: McpServers): ServerItem[] {
  return servers.all().flatMap((f) =>
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
}

/** One server's actions; true when one ran (the list shows again), false when dismissed. */
async function serverActions(servers: McpServers, item: ServerItem): Promise<boolean> {
  const { f, status } = item;
  const { manager, root } = f;
  // Start and Restart are not awaited: the live list shows them starting, then running or failed.
  const run = (what: string, op: () => Promise<void>) => async () => {
    void op().catch((err: unknown) => {
      void vscode.window.showErrorMessage(
        `Downcity: could not ${what} the MCP server "${status.name}": ${firstLine(err instanceof Error ? err.message : String(err))}`,
      );
    });
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
    // The running server's tools, and those allowed always (a stopped server lists no tools).
    ...[
      ...new Set([
        ...status.tools.map((name) => name.replace(/^mcp__.*?__/, "")),
        ...servers.trust.alwaysTools(root, status.name),
      ]),
    ].map((tool) => {
      const on = servers.trust.isAlways(root, status.name, tool);
      return {
        label: `$(tools) ${tool}`,
        description: on ? "always allowed — pick to ask again" : "pick to always allow",
        run: () => servers.trust.toggleAlways(root, status.name, tool),
      };
    }),
    {
      label: "$(output) Show Output",
      run: async () => {
        servers.output.show(true);
        return "done";
      },
    },
  ];
  const action = await vscode.window.showQuickPick(actions, {
    title: `MCP server "${status.name}" (${status.state})`,
    placeHolder: status.lastError ? firstLine(status.lastError) : status.launch,
  });
  if (!action) return false;
  // Showing the output leaves the list closed: the user is reading the channel.
  return (await action.run()) !== "done";
}

const firstLine = (s: string) => s.split("\n")[0]!;
