import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import { createWorkspaceRuntime } from "../../../core/runtime";
import { type ListFilter } from "../../../core/runtime/host";
import { Sessions } from "../../../core/storage";
import { ProviderConfig } from "../../../extension/config/providers";
import { FolderRegistry } from "../../../extension/folders/registry";
import type { SessionNode, SessionTreeNode } from "../../../extension/sessions/nodes";
import { PAGE_SIZE } from "../../../extension/sessions/folder-model";
import { FIRST_ROWS, SessionsTree } from "../../../extension/sessions/tree";
import { DAY, manySessions } from "../../support/many-sessions";
import { tempDir } from "../../support/temp";
import { countingFactory, fakeContext, folder, setFolders } from "../../support/extension/helpers";

/** Runtimes whose every list is first shown to `seen` (which may hold it back). */
function listsSeenBy(seen: (filter: ListFilter) => void | Promise<void>) {
  return countingFactory((options) => {
    const runtime = createWorkspaceRuntime(options);
    const list = runtime.list.bind(runtime);
    runtime.list = async (filter = {}) => {
      await seen(filter);
      return list(filter);
    };
    return runtime;
  }).factory;
}

/**
 * The tree at scale (issue 20): its first rows come from one bounded pass (the newest
 * sessions, FIRST_ROWS of them), before the full list; the full list then redraws the
 * tree once. The full list is held back here until the test lets it go.
 */
test("the first rows show from the first page alone; the full list then redraws the tree once, with group sizes and the Damaged group", async (t) => {
  const root = tempDir(t);
  const now = Date.now();
  // 400 sessions: the newest 30 today (a minute apart), the rest a day apart before.
  const ids = await manySessions(root, 400, (i) => (i < 30 ? now - i * 60_000 : now - (i - 28) * DAY));
  mkdirSync(join(root, ".downcity", "agents", "code", "sessions", "stray-folder"));
  setFolders([folder(root)]);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const asked: ListFilter[] = [];
  const factory = listsSeenBy(async (filter) => {
    asked.push(filter);
    if (filter.limit === undefined) await gate;
  });
  const context = fakeContext();
  const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  const tree = new SessionsTree(runtimes, { coalesceMs: 1, drawWaitMs: 0 });
  const fired: (SessionTreeNode | SessionTreeNode[] | undefined)[] = [];
  tree.onDidChangeTreeData((e) => fired.push(e));
  t.after(async () => {
    release();
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  });
  const item = (n: SessionTreeNode) => tree.getTreeItem(n);

  // Before the full list: Today's rows, newest first, and the older groups the first page reaches.
  const groups = await tree.getChildren();
  assert.deepEqual(
    asked.map((f) => [f.limit, f.archived === true]),
    [
      [FIRST_ROWS, false],
      [PAGE_SIZE + 1, true],
    ],
    "first pages of live and archived sessions, then (below) the full lists",
  );
  assert.equal(item(groups[0]!).label, "Today");
  assert.equal(item(groups[0]!).description, undefined, "no count before the full list");
  const today = (await tree.getChildren(groups[0])) as SessionNode[];
  assert.deepEqual(
    today.slice(0, 30).map((n) => n.item.sessionId),
    ids.slice(0, 30),
  );
  assert.ok(!groups.some((g) => item(g).label === "Damaged"), "damaged folders come with the full list");
  const shown = today[0]!;

  // The full list: one redraw of the whole tree, counts, every group, the Damaged group; rows keep their nodes.
  const redrawn = new Promise<void>((resolve) => {
    const sub = tree.onDidChangeTreeData(() => (sub.dispose(), resolve()));
  });
  release();
  await tree.ready;
  await redrawn;
  assert.deepEqual(
    asked.map((f) => [f.limit, f.archived === true]),
    [
      [FIRST_ROWS, false],
      [PAGE_SIZE + 1, true],
      [undefined, false],
      [undefined, true],
    ],
    "then the full lists",
  );
  assert.deepEqual(fired, [undefined], "one refresh of the root");
  const after = await tree.getChildren();
  assert.equal(item(after[0]!).description, "30");
  assert.equal(item(after.at(-1)!).label, "Damaged");
  const sizes = after.filter((g) => g.kind === "date").map((g) => Number(item(g).description));
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    400,
  );
  assert.equal(tree.find(runtimes.all()[0]!, "code", ids[0]!), shown, "the row's node is kept");
});

/** The tree as the workbench walks it: every open group's rows (ids, labels without counts), depth first. */
async function shape(tree: SessionsTree, node?: SessionTreeNode): Promise<string[]> {
  const rows: string[] = [];
  for (const child of await tree.getChildren(node)) {
    const item = tree.getTreeItem(child);
    rows.push(item.id!);
    if (item.collapsibleState === vscode.TreeItemCollapsibleState.Expanded)
      rows.push(...(await shape(tree, child)).map((r) => `  ${r}`));
  }
  return rows;
}

test("with several agents the first page already shows each agent's level, its date groups and its Archived group: the full list's shape", async (t) => {
  const root = tempDir(t);
  const now = Date.now();
  // "code" fills more than a first page with today's sessions; "ask" was last used 3 days ago, one of its sessions archived.
  await manySessions(root, FIRST_ROWS + 40, (i) => now - i * 60_000, "code");
  await manySessions(root, 3, (i) => now - (3 + i) * DAY, "ask");
  const writer = new Sessions({ root });
  await writer.archive({ agentId: "ask", sessionId: "s0002" });
  await writer.close();
  setFolders([folder(root)]);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const factory = listsSeenBy(async (filter) => {
    if (filter.limit === undefined) await gate;
  });
  const context = fakeContext();
  const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  const tree = new SessionsTree(runtimes, { coalesceMs: 1, drawWaitMs: 0 });
  t.after(async () => {
    release();
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  });

  const first = await shape(tree);
  const base = vscode.Uri.file(root).toString();
  assert.deepEqual(
    first.filter((r) => !r.includes("session:")),
    [
      `agent:${base}:ask`,
      `  date:${base}:ask:week`,
      `  archived:${base}:ask`,
      `agent:${base}:code`,
      `  date:${base}:code:today`,
      `    more:${base}:code:today`,
    ],
    "agent level, date groups and Archived before the full list",
  );
  release();
  await tree.ready;
  assert.deepEqual(await shape(tree), first, "the full list draws the same rows");
});

/**
 * VS Code's side of a tree view, as far as handles go: the extension host keeps a handle per
 * row it handed out and drops them on a refresh (all of them on a root refresh, an element's
 * descendants on its refresh); the workbench asks for an open row's children a moment after
 * it got the row. Asking about a dropped handle is what VS Code logs as "No tree item with id
 * … found" (and answers with no children).
 */
function workbenchOf(tree: SessionsTree) {
  const handles = new Map<string, SessionTreeNode>();
  const parents = new Map<string, string | undefined>();
  const missing: string[] = [];
  const idOf = (n: SessionTreeNode) => tree.getTreeItem(n).id!;
  const dropUnder = (id: string | undefined) => {
    for (const [child, parent] of [...parents])
      if (parent === id) {
        dropUnder(child);
        handles.delete(child);
        parents.delete(child);
      }
  };
  tree.onDidChangeTreeData((e) => {
    if (e === undefined) {
      handles.clear();
      parents.clear();
    } else for (const n of Array.isArray(e) ? e : [e]) dropUnder(idOf(n));
  });
  /** One fetch: the children of `id` (the root when undefined), registered; the open ones returned. */
  const fetch = async (id?: string): Promise<string[]> => {
    const node = id === undefined ? undefined : handles.get(id);
    if (id !== undefined && !node) {
      missing.push(id);
      return [];
    }
    const open: string[] = [];
    for (const child of await tree.getChildren(node)) {
      const item = tree.getTreeItem(child);
      handles.set(item.id!, child);
      parents.set(item.id!, id);
      if (item.collapsibleState === vscode.TreeItemCollapsibleState.Expanded) open.push(item.id!);
    }
    return open;
  };
  return { fetch, missing };
}

test("the full list starts, and refreshes fire, only once the workbench asked for the open rows it was handed: no handle it holds is dropped first", async (t) => {
  const root = tempDir(t);
  const now = Date.now();
  await manySessions(root, 30, (i) => now - i * 60_000, "code");
  await manySessions(root, 2, (i) => now - i * 60_000, "ask");
  setFolders([folder(root)]);
  const context = fakeContext();
  let fullAsked!: () => void;
  const fullList = new Promise<boolean>((resolve) => (fullAsked = () => resolve(true)));
  const factory = listsSeenBy((filter) => {
    if (filter.limit === undefined) fullAsked();
  });
  const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  // The product's wait for the workbench's draw (DRAW_WAIT_MS), the tree's own coalescing.
  const tree = new SessionsTree(runtimes, { coalesceMs: 1 });
  const fired: unknown[] = [];
  tree.onDidChangeTreeData((e) => fired.push(e));
  t.after(async () => {
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  });
  const workbench = workbenchOf(tree);
  /** Whether `p` settles within 200 ms: what must not happen yet would happen within a few ms (coalescing: 1 ms). */
  const soon = (p: Promise<unknown>) =>
    Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 200))]);
  const nextFire = () =>
    new Promise<void>((resolve) => {
      const sub = tree.onDidChangeTreeData(() => (sub.dispose(), resolve()));
    });

  // The workbench gets the first page's agent rows and is slow to ask for their groups (a busy renderer). The full
  // list, whose reads would share the host's thread with the drawing, and whose redraw would drop the agent rows'
  // handles, waits.
  const agents = await workbench.fetch();
  assert.equal(agents.length, 2);
  assert.equal(await soon(fullList), false, "no full list before the workbench drew the first rows");
  const redrawn = nextFire();
  const groups = (await Promise.all(agents.map((id) => workbench.fetch(id)))).flat();
  await Promise.all(groups.map((id) => workbench.fetch(id)));
  assert.equal(await fullList, true);
  await tree.ready;
  await redrawn;
  assert.deepEqual(fired, [undefined], "the full list's one redraw");
  assert.deepEqual(workbench.missing, [], "every handle the workbench asked about was known");

  // Drawing again, the workbench has Today's row of "code" but has not asked for its rows when a session of "code"
  // changes: its refresh (of the agent row, which drops Today's handle) waits until the workbench asked.
  const again = await workbench.fetch();
  const code = again.find((id) => id.endsWith(":code"))!;
  const [today] = await workbench.fetch(code);
  const refreshed = nextFire();
  const { runtime } = runtimes.all()[0]!;
  const hot = runtime.create("code");
  hot.append("user/message", { content: [{ type: "text", text: "a new one" }] }, { surface: "append" });
  assert.equal(await soon(refreshed), false, "no refresh while Today's rows are being asked for");
  await workbench.fetch(today);
  await Promise.all(again.filter((id) => id !== code).map((id) => workbench.fetch(id)));
  await refreshed;
  assert.deepEqual(workbench.missing, [], "no handle asked about after it was dropped");
});

test("the full list waits for the workbench's first root request, which comes a round trip after the view is registered; a view never opened lists its first page only; a command's at once", async (t) => {
  const root = tempDir(t);
  const now = Date.now();
  await manySessions(root, 30, (i) => now - i * 60_000, "code");
  setFolders([folder(root)]);
  const context = fakeContext();
  const make = (drawWaitMs?: number) => {
    let fulls = 0;
    let fullAsked!: () => void;
    const full = new Promise<void>((resolve) => (fullAsked = resolve));
    const factory = listsSeenBy((filter) => {
      if (filter.limit === undefined && ++fulls === 1) fullAsked();
    });
    const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
    const tree = new SessionsTree(runtimes, { coalesceMs: 1, ...(drawWaitMs !== undefined && { drawWaitMs }) });
    t.after(async () => {
      tree.dispose();
      await runtimes.close();
      runtimes.dispose();
    });
    return { tree, full, fulls: () => fulls };
  };
  /** Turns of the event loop: what the first page's continuation schedules (setImmediate) has run. */
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };

  // The view is showing (the product's DRAW_WAIT_MS): the first page is in before the workbench asked for anything.
  const shown = make();
  await shown.tree.firstRows;
  await turns(20);
  assert.equal(shown.fulls(), 0, "no full list before the workbench's first request for the root");
  const workbench = workbenchOf(shown.tree);
  const open = await workbench.fetch();
  assert.equal(shown.fulls(), 0, "nor while the root's open rows are not asked for");
  await Promise.all(open.map((id) => workbench.fetch(id)));
  await shown.full;
  await shown.tree.ready;
  assert.equal(shown.fulls(), 2, "then the live and archived full lists");

  // A view never opened (the extension activates after start-up, whether or not the view is shown): the first page
  // only, however long the window stays open. The root's request starts the DRAW_WAIT_MS bound, which lets the full
  // list go when the workbench does not ask for the open rows.
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const hidden = make(30);
  await hidden.tree.firstRows;
  await turns(20);
  t.mock.timers.tick(3_600_000);
  await turns(20);
  assert.equal(hidden.fulls(), 0, "no full list while the view was never asked for");
  await workbenchOf(hidden.tree).fetch();
  await turns(20);
  assert.equal(hidden.fulls(), 0, "the root's request starts the bound");
  t.mock.timers.tick(30);
  await hidden.full;
  await hidden.tree.ready;
  assert.equal(hidden.fulls(), 2);
  t.mock.timers.reset();

  // A command needs every session (it awaits `ready`): the full list does not wait for a draw.
  const wanted = make(600_000);
  await wanted.tree.firstRows;
  await wanted.tree.ready;
  assert.equal(wanted.fulls(), 2);
});
