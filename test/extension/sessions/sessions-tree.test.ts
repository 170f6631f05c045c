import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import type { AgentEvent } from "../../../core/protocol";
import type { SessionChange } from "../../../core/session";
import { Emitter } from "../../../core/util/emitter";
import { ProviderConfig } from "../../../extension/config/providers";
import { createWorkspaceRuntime } from "../../../core/runtime";
import { FolderRegistry } from "../../../extension/folders/registry";
import type { SessionNode, SessionTreeNode } from "../../../extension/sessions/nodes";
import { AREA_DIR_GLOB, META_GLOB, SESSION_DIR_GLOB, SessionsTree } from "../../../extension/sessions/tree";
import * as fake from "../../support/vscode-fake";
import { tempDir } from "../../support/temp";
import { countingFactory, fakeContext, folder, setFolders, storeSessions } from "../../support/extension/helpers";

/** FolderRegistry whose change feed and agent events a test can also drive by hand. */
function setup(folders: vscode.WorkspaceFolder[], coalesceMs = 100) {
  setFolders(folders);
  const feeds: { change: Emitter<{ c: [SessionChange] }>; event: Emitter<{ e: [AgentEvent] }> }[] = [];
  const { factory, made } = countingFactory((options) => {
    const runtime = createWorkspaceRuntime(options);
    const feed = { change: new Emitter<{ c: [SessionChange] }>(), event: new Emitter<{ e: [AgentEvent] }>() };
    feeds.push(feed);
    const onChange = runtime.onChange.bind(runtime);
    const onEvent = runtime.onEvent.bind(runtime);
    runtime.onChange = (l) => {
      const offs = [onChange(l), feed.change.on("c", l)];
      return () => offs.forEach((o) => o());
    };
    runtime.onEvent = (l) => {
      const offs = [onEvent(l), feed.event.on("e", l)];
      return () => offs.forEach((o) => o());
    };
    return runtime;
  });
  const context = fakeContext();
  const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  const tree = new SessionsTree(runtimes, { coalesceMs, drawWaitMs: 0 });
  const fired: (SessionTreeNode | SessionTreeNode[] | undefined)[] = [];
  tree.onDidChangeTreeData((e) => fired.push(e));
  const nextFire = () =>
    new Promise<SessionTreeNode | SessionTreeNode[] | undefined>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no tree refresh within 5 s")), 5000);
      const sub = tree.onDidChangeTreeData((e) => (clearTimeout(timer), sub.dispose(), resolve(e)));
    });
  const close = async () => {
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  };
  return { runtimes, tree, made, feeds, fired, nextFire, close };
}

/** The rows of the first date group (every session these tests write is from today). */
const todayRows = async (tree: SessionsTree, parent?: SessionTreeNode) => {
  // The full list, not the first page that may show before it (sessions-tree-first-page.test.ts).
  await tree.ready;
  const [today] = await tree.getChildren(parent);
  assert.equal(today?.kind, "date");
  return (await tree.getChildren(today)) as SessionNode[];
};
const labels = (nodes: SessionTreeNode[], tree: SessionsTree) => nodes.map((n) => tree.getTreeItem(n).label as string);
const lists = (made: { lists: number }[]) => made.reduce((n, m) => n + m.lists, 0);
/** The fake watchers made for `glob` (the tree has one for meta.json files, one for session folders). */
const watcherOf = (glob: string) =>
  fake.created.watchers.filter((w) => typeof w.pattern !== "string" && w.pattern.pattern === glob);

test("the tree merges hot and cold, then follows the change feed and the meta.json watcher without listing again", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 3);
  const { runtimes, tree, made, nextFire, close } = setup([folder(root)], 5);
  t.after(close);
  const { runtime } = runtimes.all()[0]!;
  const hot = runtime.create("code");
  hot.append("user/message", { content: [{ type: "text", text: "live one" }] }, { surface: "append" });

  const rows = await todayRows(tree);
  // Its write-behind flush now, so it cannot land amid the checks of single-row refreshes below.
  const flushed = nextFire();
  // (createWorkspaceRuntime's DeferredRuntime made its WorkspaceRuntime at `create`.)
  const inner = (runtime as unknown as { made: { sessions: { flush(s: unknown): Promise<void> } } }).made;
  await inner.sessions.flush(hot);
  await flushed;
  assert.equal(rows.length, 4, "3 cold + 1 hot, merged by id");
  assert.equal(rows.filter((r) => r.item.hot).length, 1);
  assert.ok(
    rows.every((r, i) => i === 0 || rows[i - 1]!.item.updatedAt >= r.item.updatedAt),
    "newest first",
  );
  const listed = lists(made);
  assert.equal(listed, 4, "first pages of live and archived sessions, then one full list of each");
  const item = tree.getTreeItem(rows.find((r) => r.item.sessionId === "session-1")!);
  assert.equal(item.label, "Stored 1");
  assert.equal(item.contextValue, "session.live");
  assert.match((item.tooltip as vscode.MarkdownString).value, /1 messages · history/);

  // The change feed: a rename moves the row to the top (its group is refreshed once)…
  let renamed = nextFire();
  await runtime.rename({ agentId: "code", sessionId: "session-1" }, "Pinned title");
  await renamed;
  const node = tree.find(runtimes.all()[0]!, "code", "session-1")!;
  assert.equal((await todayRows(tree))[0], node);
  assert.equal(tree.getTreeItem(node).label, "Pinned title");
  // …and once it is on top, a change refreshes that row only.
  renamed = nextFire();
  await runtime.rename({ agentId: "code", sessionId: "session-1" }, "Pinned again");
  assert.deepEqual(await renamed, [node]);
  assert.equal(tree.getTreeItem(node).label, "Pinned again");

  // Another process writes a session: the watcher's meta.json event adds it.
  await storeSessions(root, 1, { start: 50 });
  const added = nextFire();
  watcherOf(META_GLOB)
    .at(-1)!
    .fire("create", vscode.Uri.file(join(root, ".downcity", "agents", "code", "sessions", "session-50", "meta.json")));
  await added;
  assert.ok(labels(await todayRows(tree), tree).includes("Stored 0"));
  assert.ok(tree.find(runtimes.all()[0]!, "code", "session-50"), "the other window's session is in the tree");

  // Archive through the runtime: the row moves into a collapsed "Archived" group.
  const moved = nextFire();
  await runtime.archive({ agentId: "code", sessionId: "session-0" });
  await moved;
  const after = await tree.getChildren();
  const group = after.at(-1)!;
  assert.equal(group.kind, "archived");
  assert.equal(tree.getTreeItem(group).collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
  assert.deepEqual(labels(await tree.getChildren(group), tree), ["Stored 0"]);

  // A delete seen by the watcher (another window) removes the row: the folder goes (renamed aside, then
  // removed), one event for the folder and none for the meta.json inside it.
  const gone = nextFire();
  const other = setup([folder(root)], 5);
  await other.runtimes.all()[0]!.runtime.delete({ agentId: "code", sessionId: "session-2" });
  await other.close();
  setFolders([folder(root)]);
  watcherOf(SESSION_DIR_GLOB)
    .find((w) => !w.disposed)!
    .fire("delete", vscode.Uri.file(join(root, ".downcity", "agents", "code", "sessions", "session-2")));
  await gone;
  assert.equal(tree.find(runtimes.all()[0]!, "code", "session-2"), undefined);
  assert.equal(lists(made), listed, "no event caused a re-list");
});

test("a burst of 1,000 events causes a bounded number of refreshes, each naming only the changed rows", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 20);
  const { runtimes, tree, feeds, fired, made, close } = setup([folder(root)], 100);
  t.after(close);
  const rows = await todayRows(tree);
  t.mock.timers.enable({ apis: ["setTimeout"] });
  fired.length = 0;
  const top = rows[0]!;
  let time = top.item.updatedAt;
  // 1,000 updates of the streaming (top) session, one every 10 ms: 10 s of streaming.
  for (let i = 0; i < 1000; i++) {
    feeds[0]!.change.emit("c", {
      kind: "updated",
      agentId: "code",
      sessionId: top.item.sessionId,
      item: { ...top.item, updatedAt: ++time, messageCount: i },
    });
    t.mock.timers.tick(10);
  }
  t.mock.timers.tick(100);
  assert.ok(fired.length <= 101, `${fired.length} refreshes for 1,000 events`);
  assert.ok(fired.length >= 10);
  for (const e of fired)
    assert.deepEqual(e, [top], "only the streaming row is refreshed: cost independent of the session count");

  // 1,000 events at once over many sessions and approvals: one refresh.
  fired.length = 0;
  for (let i = 0; i < 1000; i++) {
    const row = rows[i % rows.length]!;
    feeds[0]!.event.emit("e", {
      type: "approval-requested",
      agentId: "code",
      sessionId: row.item.sessionId,
      toolCallId: `c${i}`,
      toolName: "edit",
      kind: "edit",
      summary: "edit a file",
    });
  }
  t.mock.timers.tick(100);
  assert.equal(fired.length, 1);
  assert.equal((fired[0] as SessionTreeNode[]).length, rows.length);
  assert.equal((tree.getTreeItem(rows[3]!).iconPath as vscode.ThemeIcon).id, "bell-dot", "waiting for approval");
  feeds[0]!.event.emit("e", {
    type: "turn-ended",
    agentId: "code",
    sessionId: rows[3]!.item.sessionId,
    reason: "cancelled",
  });
  t.mock.timers.tick(100);
  assert.equal((tree.getTreeItem(rows[3]!).iconPath as vscode.ThemeIcon).id, "debug-pause", "interrupted");
  assert.equal(lists(made), 4, "the two first pages and the two full lists, nothing more");
  void runtimes;
});

test("folder level only with several folders, agent level only with several agents", async (t) => {
  const a = tempDir(t);
  const b = tempDir(t);
  await storeSessions(a, 2);
  await storeSessions(a, 1, { agentId: "ask", start: 10 });
  await storeSessions(b, 1);
  const { tree, close } = setup([folder(a, 0, "alpha"), folder(b, 1, "beta")], 5);
  t.after(close);
  const top = await tree.getChildren();
  assert.deepEqual(labels(top, tree), ["alpha", "beta"]);
  const agents = await tree.getChildren(top[0]);
  assert.deepEqual(
    agents.map((n) => n.kind),
    ["agent", "agent"],
  );
  assert.deepEqual(labels(agents, tree), ["Ask", "Code"]);
  assert.equal((await todayRows(tree, agents[1])).length, 2);
  const beta = await tree.getChildren(top[1]);
  assert.deepEqual(
    beta.map((n) => n.kind),
    ["date"],
    "one agent: no agent level, its date groups",
  );
  const [row] = await todayRows(tree, top[1]);
  assert.equal(tree.getParent(row!), beta[0]);
  assert.equal(tree.getParent(beta[0]!), top[1]);
});

test("another window's first archive of an agent (the move makes archived/, the one event names it) shows under Archived", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 3);
  const { runtimes, tree, nextFire, close } = setup([folder(root)], 5);
  t.after(close);
  await todayRows(tree);
  const other = setup([folder(root)], 5);
  await other.runtimes.all()[0]!.runtime.archive({ agentId: "code", sessionId: "session-1" });
  await other.close();
  setFolders([folder(root)]);
  // VS Code's watcher reports the new area folder alone: nothing for the session folder moved into it.
  const shown = nextFire();
  watcherOf(AREA_DIR_GLOB)
    .find((w) => !w.disposed)!
    .fire("create", vscode.Uri.file(join(root, ".downcity", "agents", "code", "archived")));
  await shown;
  const group = (await tree.getChildren()).at(-1)!;
  assert.equal(group.kind, "archived");
  const archived = (await tree.getChildren(group)) as SessionNode[];
  assert.deepEqual(
    archived.map((n) => n.item.sessionId),
    ["session-1"],
  );
  assert.equal(tree.find(runtimes.all()[0]!, "code", "session-1")?.item.archived, true);
});
