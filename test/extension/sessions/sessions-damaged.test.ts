import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ProviderConfig } from "../../../extension/config/providers";
import { FolderRegistry } from "../../../extension/folders/registry";
import { isDamagedFolderNode } from "../../../extension/sessions/damaged";
import type { SessionTreeNode } from "../../../extension/sessions/nodes";
import { SessionsTree } from "../../../extension/sessions/tree";
import { sessionPaths } from "../../../core/storage";
import { tempDir } from "../../support/temp";
import { countingFactory, fakeContext, folder, setFolders, storeSessions } from "../../support/extension/helpers";

test('the tree shows a stray folder and a session folder without its log only under a "Damaged" group at the bottom; an intact session with a linked meta.json is a normal row; a deleted damaged folder leaves the tree', async (t) => {
  const root = tempDir(t);
  const [kept, linked, gone] = await storeSessions(root, 3);
  const area = join(root, ".downcity", "agents", "code", "sessions");
  mkdirSync(join(area, "ghost"));
  const meta = sessionPaths(root, "code", linked!).meta;
  rmSync(meta);
  symlinkSync("/etc/hostname", meta);
  rmSync(sessionPaths(root, "code", gone!).messages, { recursive: true });

  setFolders([folder(root)]);
  const { factory } = countingFactory();
  const context = fakeContext();
  const runtimes = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  const tree = new SessionsTree(runtimes, { coalesceMs: 1, drawWaitMs: 0 });
  t.after(async () => {
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  });
  const label = (n: SessionTreeNode) => tree.getTreeItem(n).label as string;
  // The Damaged group comes with the full list (the first page leaves damaged folders to it).
  await tree.ready;
  const top = await tree.getChildren();
  // The sessions are under their date group ("Today"), the Damaged group below it.
  assert.equal(top.length, 2);
  assert.equal(label(top[0]!), "Today");
  assert.deepEqual(
    (await tree.getChildren(top[0])).map(label).sort(),
    ["Stored 0", "Stored 1"],
    `${kept} and ${linked} are sessions; ${gone} is not`,
  );
  const group = top.at(-1)!;
  assert.equal(tree.getTreeItem(group).description, "2");
  const rows = await tree.getChildren(group);
  assert.deepEqual(
    rows.map((r) => [label(r), tree.getTreeItem(r).description, tree.getTreeItem(r).contextValue]),
    [
      ["ghost", "it holds no event log (messages/active.jsonl or a segment)", "damaged"],
      [gone, "it holds no event log (messages/active.jsonl or a segment)", "damaged"],
    ],
  );
  assert.equal(tree.getParent(rows[0]!), group);
  assert.ok(
    !tree.sessions().some((n) => n.item.sessionId === gone || n.item.sessionId === "ghost"),
    "no command's session pick offers them",
  );

  const ghost = rows[0]!;
  assert.ok(isDamagedFolderNode(ghost));
  const refreshed = new Promise((resolve) => tree.onDidChangeTreeData(resolve));
  await ghost.entry.runtime.deleteDamaged!(ghost.folder);
  tree.forgetDamaged(ghost);
  await refreshed;
  assert.ok(!existsSync(join(area, "ghost")), "deleted on disk");
  assert.deepEqual((await tree.getChildren(group)).map(label), [gone]);
  // A session folder is never deleted as damaged.
  await assert.rejects(
    ghost.entry.runtime.deleteDamaged!({ ...ghost.folder, folder: kept! }),
    /no longer a damaged folder/,
  );
  assert.ok(existsSync(sessionPaths(root, "code", kept!).active));
});
