import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createWorkspaceRuntime, type ListFilter } from "../../core/runtime";
import { ProviderConfig } from "../../extension/config/providers";
import { FolderRegistry } from "../../extension/folders/registry";
import type { SessionNode, SessionTreeNode } from "../../extension/sessions/nodes";
import { FIRST_ROWS, SessionsTree } from "../../extension/sessions/tree";
import { DAY, manySessions } from "../support/many-sessions";
import { tempDir } from "../support/temp";
import { countingFactory, fakeContext, folder, setFolders } from "../support/extension/helpers";

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
  const { factory } = countingFactory((options) => {
    const runtime = createWorkspaceRuntime(options);
    const list = runtime.list.bind(runtime);
    runtime.list = async (filter = {}) => {
      asked.push(filter);
      if (filter.limit === undefined) await gate;
      return list(filter);
    };
    return runtime;
  });
  const context = fakeContext();
  const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  const tree = new SessionsTree(runtimes, { coalesceMs: 1 });
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
    asked.map((f) => f.limit),
    [FIRST_ROWS, undefined, undefined],
    "one first page, then the full lists (held)",
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
