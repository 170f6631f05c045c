// Issue 20: the extension activates in two steps (extension/activate.ts). The Sessions tree and what it stands on
// come first; the rest (the chat, the commands, the tools: extension/features.ts, whose modules are most of the
// bundle's evaluation) once the workbench has drawn the tree's first rows, never later than FIRST_DRAW_MS, and only
// FIRST_DRAW_ASK_MS when the workbench never asks for the root (a hidden or collapsed tree). VS Code runs a command
// or resolves the chat view once activation ends. Real tree over a real store, the vscode fake; bounds with mock timers.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import * as vscode from "vscode";
import { activate, deactivate, type DowncityHost } from "../../../extension/activate";
import { useSeams } from "../../../extension/seams";
import { FIRST_DRAW_ASK_MS, FIRST_DRAW_MS } from "../../../extension/sessions/first-draw";
import type { SessionTreeNode } from "../../../extension/sessions/nodes";
import type { SessionsTree } from "../../../extension/sessions/tree";
import * as fake from "../../support/vscode-fake";
import { fakeContext, folder, setFolders } from "../../support/extension/helpers";
import { manySessions } from "../../support/many-sessions";
import { tempDir } from "../../support/temp";

const registered = async (id: string) => (await vscode.commands.getCommands()).includes(id);

/** activate() on a folder of three sessions (mock timers on), until the tree's first page is in. */
async function activating(t: TestContext) {
  const root = tempDir(t);
  const now = Date.now();
  await manySessions(root, 3, (i) => now - i * 60_000);
  setFolders([folder(root)]);
  t.mock.timers.enable({ apis: ["setTimeout"] });
  // Event-loop turns: what a settled promise's continuations do has run, and the turn the rest waits for before it
  // starts (extension/host-turn.ts: an immediate, then a zero timer, run here by mock time that does not advance).
  const turns = async (n = 40) => {
    for (let i = 0; i < n; i++) {
      await new Promise((r) => setImmediate(r));
      t.mock.timers.tick(0);
    }
  };
  const context = fakeContext();
  useSeams({ env: {}, openInChat: async () => {} });
  let host: DowncityHost | undefined;
  void activate(context).then((made) => (host = made));
  t.after(async () => {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  });
  const view = fake.created.treeViews.at(-1)!;
  assert.equal(view.id, "downcity.sessions", "the Sessions view is made first");
  const tree = view.options.treeDataProvider as SessionsTree;
  await tree.firstRows;
  await turns();
  return { tree, turns, activated: () => host !== undefined };
}

test("the rest of the extension waits for the Sessions tree's first draw: no command before the workbench asked for the root's open rows, all of them right after", async (t) => {
  const { tree, turns, activated } = await activating(t);
  assert.equal(activated(), false);
  assert.equal(await registered("downcity.newSession"), false, "no command of the rest yet");

  // The workbench draws: the root, then the children of each open row it was handed.
  const rows = await tree.getChildren();
  const open = rows.filter(
    (n: SessionTreeNode) => tree.getTreeItem(n).collapsibleState === vscode.TreeItemCollapsibleState.Expanded,
  );
  assert.ok(open.length > 0, "the root hands out an open group (Today)");
  await turns();
  assert.equal(activated(), false, "not while an open row's children are not asked for");
  await Promise.all(open.map((n) => tree.getChildren(n)));
  await turns();
  assert.equal(activated(), true, "activated once the tree's first rows are handed out, with no timer run");
  assert.equal(await registered("downcity.newSession"), true);
  assert.equal(await registered("downcity.mcpServers"), true);
});

test("a tree asked for its root whose open rows are never asked for holds the rest FIRST_DRAW_MS at most", async (t) => {
  const { tree, turns, activated } = await activating(t);
  await tree.getChildren();
  await turns();
  t.mock.timers.tick(FIRST_DRAW_MS - 1);
  await turns();
  assert.equal(activated(), false, "still waiting just before the bound (past FIRST_DRAW_ASK_MS: the root was asked)");
  t.mock.timers.tick(1);
  await turns();
  assert.equal(activated(), true, "activated at the bound");
});

test("a collapsed or hidden Sessions view (the root never asked for) holds the rest FIRST_DRAW_ASK_MS only", async (t) => {
  const { turns, activated } = await activating(t);
  t.mock.timers.tick(FIRST_DRAW_ASK_MS - 1);
  await turns();
  assert.equal(activated(), false, "still waiting just before FIRST_DRAW_ASK_MS");
  t.mock.timers.tick(1);
  await turns();
  assert.equal(activated(), true, "activated at FIRST_DRAW_ASK_MS, not FIRST_DRAW_MS");
  assert.equal(await registered("downcity.newSession"), true);
});

test("the rest starts after the turn in which the tree's first rows were answered: the reply VS Code writes from a zero timer goes out first", async (t) => {
  const { tree, turns, activated } = await activating(t);
  const beforeTheRest = await vscode.commands.getCommands();
  const rows = await tree.getChildren();
  const open = rows.filter(
    (n: SessionTreeNode) => tree.getTreeItem(n).collapsibleState === vscode.TreeItemCollapsibleState.Expanded,
  );
  let commandsAtWrite: string[] | undefined;
  // As the extension host does with a reply: made as the answer settles, written from a zero timer.
  await Promise.all(open.map((n) => tree.getChildren(n))).then(() =>
    setTimeout(() => void vscode.commands.getCommands().then((ids) => (commandsAtWrite = ids)), 0),
  );
  await turns();
  assert.ok(commandsAtWrite, "the reply was written");
  assert.deepEqual(commandsAtWrite, beforeTheRest, "the rest had registered nothing when the reply was written");
  assert.equal(activated(), true, "the rest then made every feature");
  assert.equal(await registered("downcity.newSession"), true);
});
