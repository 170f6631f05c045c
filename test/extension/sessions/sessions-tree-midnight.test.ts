// Issue 20 item 6: the date groups follow the clock. At local midnight Today's sessions
// move to Yesterday without any session changing; the clock and the tree's timer are
// node:test mock timers, so no test waits for a real midnight.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionChange, SessionListItem } from "../../../core/session";
import { Emitter } from "../../../core/util/emitter";
import { ProviderConfig } from "../../../extension/config/providers";
import { createWorkspaceRuntime } from "../../../core/runtime";
import { FolderRegistry } from "../../../extension/folders/registry";
import { untilMidnight } from "../../../extension/sessions/date-groups";
import type { SessionTreeNode } from "../../../extension/sessions/nodes";
import { SessionsTree } from "../../../extension/sessions/tree";
import { tempDir } from "../../support/temp";
import { countingFactory, fakeContext, folder, setFolders } from "../../support/extension/helpers";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const item = (i: number, updatedAt: number): SessionListItem => ({
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
});

test("untilMidnight counts to the next local midnight, a calendar day even across a DST change", () => {
  const evening = new Date(2026, 11, 1, 23, 30).getTime();
  assert.equal(untilMidnight(evening), 30 * 60_000);
  assert.equal(
    untilMidnight(new Date(2026, 11, 2, 0, 0).getTime()),
    new Date(2026, 11, 3).getTime() - new Date(2026, 11, 2).getTime(),
  );
  // Whatever the zone's rules, the instant reached is a local midnight.
  for (const start of [new Date(2026, 2, 28, 12).getTime(), new Date(2026, 9, 24, 12).getTime()]) {
    const at = new Date(start + untilMidnight(start));
    assert.deepEqual([at.getHours(), at.getMinutes(), at.getDate()], [0, 0, new Date(start).getDate() + 1]);
  }
});

test("at local midnight the tree regroups by itself: Today becomes Yesterday, Yesterday joins the previous 7 days", async (t) => {
  // 23:30 local: one session half an hour ago, one the evening before.
  const start = new Date(2026, 11, 1, 23, 30).getTime();
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: start });
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
  const tree = new SessionsTree(runtimes, { coalesceMs: 0, drawWaitMs: 0 });
  const fired: (SessionTreeNode | SessionTreeNode[] | undefined)[] = [];
  tree.onDidChangeTreeData((e) => fired.push(e));
  t.after(async () => {
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  });
  await tree.ready;
  for (const it of [item(1, start - 30 * 60_000), item(2, start - DAY)])
    feed.emit("c", { kind: "created", agentId: "code", sessionId: it.sessionId, item: it });
  t.mock.timers.tick(0);
  const labels = async () => (await tree.getChildren()).map((g) => tree.getTreeItem(g).label);
  assert.deepEqual(await labels(), ["Today", "Yesterday"]);
  fired.length = 0;

  // A minute before midnight nothing has moved, and nothing was refreshed.
  t.mock.timers.tick(29 * 60_000);
  assert.deepEqual(fired, []);
  // Midnight: one whole-tree refresh, and the groups read the new day.
  t.mock.timers.tick(60_000);
  assert.deepEqual(fired, [undefined]);
  assert.deepEqual(await labels(), ["Yesterday", "Previous 7 days"]);
  const [yesterday] = await tree.getChildren();
  assert.deepEqual(
    (await tree.getChildren(yesterday)).map((r) => tree.getTreeItem(r).label),
    ["Session 1"],
  );

  // And again the next midnight (the timer re-arms itself): both are in the previous 7 days.
  fired.length = 0;
  t.mock.timers.tick(DAY - 1);
  assert.deepEqual(fired, []);
  t.mock.timers.tick(1);
  assert.deepEqual(fired, [undefined]);
  assert.deepEqual(await labels(), ["Previous 7 days"]);
});
