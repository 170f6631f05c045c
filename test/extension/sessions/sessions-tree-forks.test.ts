import assert from "node:assert/strict";
import { test } from "node:test";
import * as vscode from "vscode";
import type { SessionNode } from "../../../extension/sessions/nodes";
import type { SessionsTree } from "../../../extension/sessions/tree";
import { seedSessions } from "../../support/workbench/seed";
import { tempDir } from "../../support/temp";
import { folder, setFolders } from "../../support/extension/helpers";
import { openSessionsTree } from "../../support/extension/sessions-tree";

/** Every session row of the (one-folder, one-agent) tree, whatever groups hold them. */
async function rows(tree: SessionsTree): Promise<SessionNode[]> {
  const out: SessionNode[] = [];
  const walk = async (nodes: Awaited<ReturnType<SessionsTree["getChildren"]>>) => {
    for (const node of nodes) {
      if (node.kind === "session") out.push(node);
      else if ((node.kind as string) !== "more") await walk(await tree.getChildren(node));
    }
  };
  await walk(await tree.getChildren());
  return out;
}

// Issue 20 item 4: a fork looked like its source (same title, same icon).
test("a fork's row says it is one: its title, a fork icon, and its origin by title in the tooltip", async (t) => {
  const root = tempDir(t);
  await seedSessions(root, [{ id: "src", title: "Release plan", agentId: "code", turns: ["How?", "Tag it."] }]);
  setFolders([folder(root)]);
  const { tree, runtimes } = openSessionsTree(t);
  const { runtime } = runtimes.all()[0]!;
  await tree.ready;
  const refreshed = new Promise<void>((resolve) => tree.onDidChangeTreeData(() => resolve()));
  await runtime.fork({ agentId: "code", sessionId: "src" });
  await refreshed;
  const all = await rows(tree);
  const fork = all.find((r) => r.item.forkedFrom)!;
  const source = all.find((r) => r.item.sessionId === "src")!;
  const forkItem = tree.getTreeItem(fork);
  const sourceItem = tree.getTreeItem(source);
  assert.equal(forkItem.label, "Fork of Release plan");
  assert.equal((forkItem.iconPath as vscode.ThemeIcon).id, "repo-forked");
  assert.notEqual((sourceItem.iconPath as vscode.ThemeIcon).id, "repo-forked");
  const tip = (forkItem.tooltip as vscode.MarkdownString).value;
  assert.match(tip, /Forked from "Release plan"/);
  assert.doesNotMatch(tip, /\bsrc\b/, "the origin is named by its title, not its id");

  // The source deleted: the fork says so, still without an id.
  const gone = new Promise<void>((resolve) => tree.onDidChangeTreeData(() => resolve()));
  await runtime.delete({ agentId: "code", sessionId: "src" });
  await gone;
  assert.match(
    (tree.getTreeItem(fork).tooltip as vscode.MarkdownString).value,
    /Forked from a session that no longer exists/,
  );
});
