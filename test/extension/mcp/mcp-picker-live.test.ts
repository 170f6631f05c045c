// "Downcity: MCP Servers" as a live QuickPick (vscode fake, real McpServers, the real
// fixture server): rows follow each state change while open, the row the user is on
// stays active, one render per change; the approval card's "always allow" lands in the
// same per-folder state the picker shows.
import assert from "node:assert/strict";
import { readFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import { showMcpServers } from "../../../extension/mcp/picker";
import { McpServers } from "../../../extension/mcp/servers";
import * as fakeVscode from "../../support/vscode-fake";
import { EventEmitter } from "../../support/vscode-fake";
import { fixtureServer } from "../../mcp/helpers";
import { withTimeout } from "../../support/with-timeout";
import { tempDir } from "../../support/temp";
import { fakeContext, folder, setFolders } from "../../support/extension/helpers";

type Item = vscode.QuickPickItem & { status: { name: string; state: string } };

/** A QuickPick the test drives: it records every `items` assignment and lets the test accept or hide. */
function fakePick() {
  const accept = new EventEmitter<void>();
  const hide = new EventEmitter<void>();
  const renders: Item[][] = [];
  const changed = new EventEmitter<void>();
  const pick = {
    title: "",
    placeholder: "",
    matchOnDetail: false,
    activeItems: [] as Item[],
    selectedItems: [] as Item[],
    get items() {
      return renders.at(-1) ?? [];
    },
    set items(items: Item[]) {
      renders.push(items);
      changed.fire();
    },
    onDidAccept: accept.event,
    onDidHide: hide.event,
    show() {},
    hide: () => hide.fire(),
    dispose() {},
  };
  return { pick, renders, accept, hide, changed };
}

/**
 * The MCP Servers list opened over one folder whose user setting names `servers` (trusted: no
 * consent prompt), drawn into a fake QuickPick; resolves once it first rendered.
 */
async function openList(t: { after(fn: () => unknown): void }, servers: Record<string, unknown>) {
  const root = tempDir(t);
  const f = folder(root);
  setFolders([f]);
  t.after(() => setFolders([]));
  const win = vscode.window as unknown as Record<string, unknown>;
  const ws = vscode.workspace as unknown as Record<string, unknown>;
  const before = { create: win.createQuickPick, get: ws.getConfiguration };
  const fake = fakePick();
  win.createQuickPick = () => fake.pick;
  ws.getConfiguration = () => ({ get: () => undefined, inspect: () => ({ globalValue: { servers } }) });
  t.after(() => {
    win.createQuickPick = before.create;
    ws.getConfiguration = before.get;
  });
  const storage = tempDir(t);
  const context = Object.assign(fakeContext(), { storageUri: vscode.Uri.file(storage) });
  const mcp = new McpServers(context, {
    appendLine() {},
    show() {},
    dispose() {},
  } as unknown as vscode.OutputChannel);
  t.after(() => mcp.dispose());
  const shown = showMcpServers(mcp);
  await withTimeout(
    new Promise<void>((ok) => (fake.renders.length ? ok() : fake.changed.event(() => ok()))),
    10_000,
    "the list",
  );
  return { root, f, fake, servers: mcp, storage, shown };
}

test("the MCP Servers list follows starting → running while open, one render per change, keeping the active row", async (t) => {
  const { root, f, fake, servers, storage, shown } = await openList(t, { a: fixtureServer(), b: fixtureServer() });
  const state = (name: string) => fake.pick.items.find((i) => i.status.name === name)!.description!;
  assert.match(state("a"), /^stopped/);
  // The user is on row "b"; then "a" starts from elsewhere (a run) while the list is open.
  fake.pick.activeItems = [fake.pick.items.find((i) => i.status.name === "b")!];
  const manager = (await servers.folder(f))!.manager;
  let changes = 0;
  manager.onDidChange(() => changes++);
  const rendersBefore = fake.renders.length;
  const running = withTimeout(
    new Promise<void>((ok) => fake.changed.event(() => /^running · \d+ tools/.test(state("a")) && ok())),
    30_000,
    "a running in the open list",
  );
  await manager.start("a");
  await running;
  assert.ok(
    fake.renders
      .slice(rendersBefore)
      .some((items) => items.find((i) => i.status.name === "a")!.description === "starting"),
    "it showed starting on the way",
  );
  assert.equal(fake.renders.length - rendersBefore, changes, "one render per change");
  assert.equal(fake.pick.activeItems[0]!.status.name, "b", "the row the user is on stays active");

  // The card's "Always allow server" (through the manager's host hook) shows in the same list.
  const { tools } = await manager.tools();
  await tools.find((x) => x.name === "mcp__a__ok")!.mcp!.allowAlways!("server");
  assert.match(state("a"), /always allowed/);
  assert.equal(tools.find((x) => x.name === "mcp__a__ok")!.mcp!.alwaysAllowed!(), true);
  assert.deepEqual(JSON.parse(readFileSync(join(storage, "mcp-trust.json"), "utf8")).always, [
    { folder: realpathSync(root), server: "a" },
  ]);

  fake.pick.hide();
  await shown;
});

test("in Restricted Mode the MCP Servers list says why nothing starts, until trust is granted while it is open", async (t) => {
  const ws = vscode.workspace as unknown as Record<string, unknown>;
  ws.isTrusted = false;
  t.after(() => (ws.isTrusted = true));
  const { fake, shown } = await openList(t, { a: fixtureServer() });
  assert.equal(fake.pick.placeholder, "Restricted Mode starts no MCP server: trust the workspace to start them");
  ws.isTrusted = true;
  fakeVscode.fire.grantTrust.fire();
  assert.equal(fake.pick.placeholder, "Pick a server to start, stop or restart it");
  fake.pick.hide();
  await shown;
});
