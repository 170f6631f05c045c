import assert from "node:assert/strict";
import { test } from "node:test";
import * as vscode from "vscode";
import { sessionKey } from "../../../core/protocol";
import { Sessions } from "../../../core/storage";
import type { SessionTreeNode } from "../../../extension/sessions/nodes";
import { folder, setFolders } from "../../support/extension/helpers";
import { openSessionsTree } from "../../support/extension/sessions-tree";
import { tempDir } from "../../support/temp";
import { seedSessions } from "../../support/workbench/seed";

/** The tree item id of every session row, by "agent/session", over a fresh tree of the folder. */
async function sessionRowIds(t: { after(fn: () => Promise<void>): void }): Promise<Map<string, string>> {
  const { tree } = openSessionsTree(t);
  await tree.ready;
  const ids = new Map<string, string>();
  const walk = async (nodes: SessionTreeNode[]): Promise<void> => {
    for (const node of nodes) {
      if (node.kind === "session") ids.set(`${node.item.agentId}/${node.item.sessionId}`, tree.getTreeItem(node).id!);
      else if (node.kind !== "more") await walk(await tree.getChildren(node));
    }
  };
  await walk(await tree.getChildren());
  return ids;
}

// Issue 22: a session row's id is the session's one key (sessionKey), not an encoding of its own.
test("session rows are keyed by folder, agent and session (two agents' same id apart), by area, the same in every tree", async (t) => {
  const root = tempDir(t);
  await seedSessions(root, [
    { id: "same", title: "Code's", agentId: "code", turns: ["a", "b"] },
    { id: "same", title: "Ask's", agentId: "ask", turns: ["c", "d"] },
    { id: "old", title: "Archived", agentId: "code", turns: ["e", "f"] },
  ]);
  const store = new Sessions({ root });
  await store.archive({ agentId: "code", sessionId: "old" });
  await store.close();
  setFolders([folder(root)]);
  const base = vscode.Uri.file(root).toString();

  const ids = await sessionRowIds(t);
  assert.deepEqual(
    Object.fromEntries(ids),
    {
      "code/same": `session:l:${sessionKey({ agentId: "code", sessionId: "same" }, base)}`,
      "ask/same": `session:l:${sessionKey({ agentId: "ask", sessionId: "same" }, base)}`,
      "code/old": `session:a:${sessionKey({ agentId: "code", sessionId: "old" }, base)}`,
    },
    "the archived row is its own item (a: archived, l: live)",
  );
  assert.deepEqual(await sessionRowIds(t), ids, "deterministic: VS Code keeps selection and expansion by id");
});
