import assert from "node:assert/strict";
import { test } from "node:test";
import * as vscode from "vscode";
import type { SessionChange, SessionListItem } from "../../../core/session";
import { Emitter } from "../../../core/util/emitter";
import { ProviderConfig } from "../../../extension/config/providers";
import { createWorkspaceRuntime } from "../../../core/runtime";
import { FolderRegistry } from "../../../extension/folders/registry";
import { PAGE_SIZE } from "../../../extension/sessions/folder-model";
import type { DateNode, SessionNode, SessionTreeNode } from "../../../extension/sessions/nodes";
import { SessionsTree } from "../../../extension/sessions/tree";
import { tempDir } from "../../support/temp";
import { countingFactory, fakeContext, folder, setFolders } from "../../support/extension/helpers";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Noon, local time: "today" starts 12 h before.
const NOW = new Date(2026, 11, 1, 12, 0, 0).getTime();

const item = (i: number, updatedAt: number, extra: Partial<SessionListItem> = {}): SessionListItem => ({
  sessionId: `s-${i}`,
  agentId: "code",
  title: `Session ${i}`,
  titleSource: "user",
  model: undefined,
  createdAt: updatedAt,
  updatedAt,
  messageCount: 2,
  historyBytes: 100,
  timeZone: "UTC",
  archived: false,
  hot: false,
  ...extra,
});

/**
 * A tree over an empty folder whose sessions arrive through the runtime's change feed (as
 * a list would give them), with a fixed clock and a counter of what each refresh names.
 */
async function scaleTree(t: { after(fn: () => unknown): void }, items: SessionListItem[]) {
  const root = tempDir(t);
  setFolders([folder(root)]);
  const feed = new Emitter<{ c: [SessionChange] }>();
  const { factory } = countingFactory((options) => {
    const runtime = createWorkspaceRuntime(options);
    const onChange = runtime.onChange.bind(runtime);
    runtime.onChange = (l) => {
      const offs = [onChange(l), feed.on("c", l)];
      return () => offs.forEach((o) => o());
    };
    return runtime;
  });
  const context = fakeContext();
  const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  const tree = new SessionsTree(runtimes, { coalesceMs: 0, drawWaitMs: 0, now: () => NOW });
  const fired: (SessionTreeNode | SessionTreeNode[] | undefined)[] = [];
  tree.onDidChangeTreeData((e) => fired.push(e));
  t.after(async () => {
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  });
  await tree.ready;
  for (const it of items) feed.emit("c", { kind: "created", agentId: it.agentId, sessionId: it.sessionId, item: it });
  const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
  await settled();
  await new Promise((r) => setTimeout(r, 5));
  fired.length = 0;
  return { tree, feed, fired, settled: async () => new Promise((r) => setTimeout(r, 5)) };
}

/** 30 today, 10 yesterday, 20 in the week before, then 9,940 over the months before that (newest first). */
function tenThousand(): SessionListItem[] {
  const items: SessionListItem[] = [];
  let i = 0;
  for (let k = 0; k < 30; k++) items.push(item(i++, NOW - k * 60_000));
  for (let k = 0; k < 10; k++) items.push(item(i++, NOW - 13 * HOUR - k * 60_000));
  for (let k = 0; k < 20; k++) items.push(item(i++, NOW - 3 * DAY - k * 60_000));
  while (i < 10_000) (items.push(item(i, NOW - 9 * DAY - (i - 60) * 2 * HOUR)), i++);
  return items;
}

// Issue 20 item 6: the tree handed every session to the workbench at once.
test("10,000 sessions: grouped by last activity, each group newest first, a page at a time with Show more", async (t) => {
  const { tree, fired } = await scaleTree(t, tenThousand());
  const groups = (await tree.getChildren()) as DateNode[];
  const names = groups.map((g) => tree.getTreeItem(g).label);
  assert.deepEqual(names.slice(0, 3), ["Today", "Yesterday", "Previous 7 days"]);
  const months = new Set(
    tenThousand()
      .slice(60)
      .map((it) => `${new Date(it.updatedAt).getFullYear()}-${new Date(it.updatedAt).getMonth()}`),
  );
  assert.equal(groups.length, 3 + months.size, "then one group per month");
  assert.match(String(names[3]), /November 2026/);
  assert.deepEqual(
    groups.slice(0, 3).map((g) => tree.getTreeItem(g).description),
    ["30", "10", "20"],
  );
  // One open group: the workbench paints the first row only once every open group's rows came back, one round trip each.
  assert.deepEqual(
    groups.map((g) => tree.getTreeItem(g).collapsibleState === vscode.TreeItemCollapsibleState.Expanded),
    groups.map((_, i) => i === 0),
    "only the newest group opens; the others' rows are not asked for until they are expanded",
  );

  // A group under a page shows all of it, newest first; none has a Show more row.
  const today = (await tree.getChildren(groups[0])) as SessionNode[];
  assert.equal(today.length, 30);
  assert.ok(
    today.every((r, i) => r.kind === "session" && (i === 0 || today[i - 1]!.item.updatedAt >= r.item.updatedAt)),
  );

  // A month of ~360 sessions: one page, then "Show more" adds a page and refreshes that group only.
  const big = groups.find((g) => Number(tree.getTreeItem(g).description) > 2 * PAGE_SIZE)!;
  let rows = await tree.getChildren(big);
  assert.equal(rows.length, PAGE_SIZE + 1);
  const more = rows.at(-1)!;
  assert.equal(more.kind, "more");
  const moreItem = tree.getTreeItem(more);
  assert.equal(moreItem.label, "Show more");
  assert.equal(moreItem.command?.command, "downcity.sessions.showMore");
  assert.equal(tree.getParent(more), big);
  tree.showMore(more);
  await new Promise((r) => setTimeout(r, 5));
  assert.deepEqual(fired, [[big]]);
  rows = await tree.getChildren(big);
  assert.equal(rows.length, 2 * PAGE_SIZE + 1);
  const sessions = rows.filter((r): r is SessionNode => r.kind === "session");
  assert.ok(
    sessions.every((r, i) => i === 0 || sessions[i - 1]!.item.updatedAt >= r.item.updatedAt),
    "newest first",
  );
  assert.equal(tree.getParent(sessions[0]!), big);
});

// The tree's cost per streamed event must not grow with the number of sessions.
test("one group opens, Today or else Yesterday, at 10 sessions as at 10,000; older groups stay closed", async (t) => {
  for (const [count, newestAgo, opened] of [
    [10, 0, ["Today"]],
    [10_000, 0, ["Today"]],
    [10, DAY, ["Yesterday"]],
    [10_000, DAY, ["Yesterday"]],
    [10, 3 * DAY, []],
    [10_000, 3 * DAY, []],
  ] as const) {
    const items = Array.from({ length: count }, (_, i) => item(i, NOW - newestAgo - i * 2 * HOUR));
    const { tree } = await scaleTree(t, items);
    const groups = (await tree.getChildren()) as DateNode[];
    const open = groups.filter(
      (g) => tree.getTreeItem(g).collapsibleState === vscode.TreeItemCollapsibleState.Expanded,
    );
    assert.deepEqual(
      open.map((g) => tree.getTreeItem(g).label),
      opened,
      `${count} sessions, the newest ${newestAgo / DAY} days old`,
    );
  }
});

test("per streamed event the tree refreshes one row, at 100 sessions as at 10,000; a session moving to Today refreshes the groups once", async (t) => {
  const named: number[] = [];
  for (const size of [100, 10_000]) {
    const items = tenThousand().slice(0, size);
    const { tree, feed, fired, settled } = await scaleTree(t, items);
    const [today] = await tree.getChildren();
    const top = ((await tree.getChildren(today)) as SessionNode[])[0]!;
    let time = top.item.updatedAt;
    for (let i = 0; i < 200; i++) {
      feed.emit("c", {
        kind: "updated",
        agentId: "code",
        sessionId: top.item.sessionId,
        item: { ...top.item, updatedAt: ++time, messageCount: i },
      });
      await settled();
    }
    assert.ok(fired.length > 0);
    for (const e of fired) assert.deepEqual(e, [top], "only the streaming row");
    named.push(fired.reduce((n, e) => n + (Array.isArray(e) ? e.length : Infinity), 0));
    fired.length = 0;
    // Yesterday's session gets a new message: it moves to Today, and the group level is refreshed once.
    const yesterday = items.find((it) => it.updatedAt < NOW - 12 * HOUR)!;
    feed.emit("c", {
      kind: "updated",
      agentId: "code",
      sessionId: yesterday.sessionId,
      item: { ...yesterday, updatedAt: NOW },
    });
    await settled();
    assert.deepEqual(fired, [undefined]);
    const [first] = await tree.getChildren();
    assert.ok(((await tree.getChildren(first)) as SessionNode[]).some((r) => r.item.sessionId === yesterday.sessionId));
  }
  assert.equal(named[1], named[0], `rows refreshed for 200 events: ${named.join(" vs ")}`);
});
