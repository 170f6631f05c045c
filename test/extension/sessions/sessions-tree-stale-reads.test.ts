// A watcher event's meta.json read that began before this window's own archive, unarchive
// or delete finishes after it: its answer is older than the change feed's and must not undo
// it. Round 7's CI (workbench-ui steps 09 and 13): the archive's late folder events were read
// while Unarchive ran.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import type { WorkspaceRuntimeApi } from "../../../core/runtime";
import type { SessionNode, SessionTreeNode } from "../../../extension/sessions/nodes";
import { META_GLOB, SESSION_DIR_GLOB, type SessionsTree } from "../../../extension/sessions/tree";
import * as fake from "../../support/vscode-fake";
import { tempDir } from "../../support/temp";
import { folder, setFolders, storeSessions } from "../../support/extension/helpers";
import { openSessionsTree } from "../../support/extension/sessions-tree";

const watcher = (glob: string) =>
  fake.created.watchers.find((w) => !w.disposed && typeof w.pattern !== "string" && w.pattern.pattern === glob)!;

/** Every session row of the one-folder, one-agent tree, whatever groups hold them. */
async function rows(tree: SessionsTree): Promise<SessionNode[]> {
  const out: SessionNode[] = [];
  const walk = async (nodes: SessionTreeNode[]) => {
    for (const node of nodes) {
      if (node.kind === "session") out.push(node);
      else if (node.kind !== "more") await walk(await tree.getChildren(node));
    }
  };
  await walk(await tree.getChildren());
  return out;
}

const nextRefresh = (tree: SessionsTree) =>
  new Promise<SessionTreeNode | SessionTreeNode[] | undefined>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("no tree refresh within 5 s")), 5000);
    const sub = tree.onDidChangeTreeData((e) => (clearTimeout(timer), sub.dispose(), resolve(e)));
  });

/**
 * Holds the tree's read of `path` once it has read the disk, until `release()`: the read's
 * answer then reaches the tree after whatever ran meanwhile.
 */
function holdRead(runtime: WorkspaceRuntimeApi, path: string) {
  const original = runtime.storedItemAt.bind(runtime);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const read = new Promise<void>((resolve) => (reached = resolve));
  runtime.storedItemAt = async (metaPath) => {
    const found = await original(metaPath);
    if (metaPath !== path) return found;
    reached();
    await gate;
    return found;
  };
  return { read, release };
}

const cases: {
  name: string;
  /** Before: what this window did whose folder event comes late. */
  before: (runtime: WorkspaceRuntimeApi) => Promise<void>;
  /** The late event's folder (under .downcity/agents/code/). */
  late: string;
  kind: "create" | "delete";
  /** Then: this window's change while that event's read is in flight. */
  then: (runtime: WorkspaceRuntimeApi) => Promise<void>;
  expect: { shown: boolean; archived?: boolean };
}[] = [
  {
    name: "the archive's 'live folder gone', read before the unarchive, does not remove the unarchived row",
    before: (r) => r.archive({ agentId: "code", sessionId: "session-1" }),
    late: "sessions/session-1",
    kind: "delete",
    then: (r) => r.unarchive({ agentId: "code", sessionId: "session-1" }),
    expect: { shown: true, archived: false },
  },
  {
    name: "the archive's 'archived folder made', read before the unarchive, does not put the row back under Archived",
    before: (r) => r.archive({ agentId: "code", sessionId: "session-1" }),
    late: "archived/session-1",
    kind: "create",
    then: (r) => r.unarchive({ agentId: "code", sessionId: "session-1" }),
    expect: { shown: true, archived: false },
  },
  {
    name: "an unarchive's 'live folder made', read before the delete, does not bring the deleted row back",
    before: async (r) => {
      await r.archive({ agentId: "code", sessionId: "session-1" });
      await r.unarchive({ agentId: "code", sessionId: "session-1" });
    },
    late: "sessions/session-1",
    kind: "create",
    then: (r) => r.delete({ agentId: "code", sessionId: "session-1" }),
    expect: { shown: false },
  },
];

for (const c of cases) {
  test(c.name, async (t) => {
    const root = tempDir(t);
    await storeSessions(root, 2);
    setFolders([folder(root)]);
    const { tree, runtimes } = openSessionsTree(t);
    const { runtime } = runtimes.all()[0]!;
    await tree.ready;
    await rows(tree);
    const told = nextRefresh(tree);
    await c.before(runtime);
    await told;

    const agent = join(root, ".downcity", "agents", "code");
    const held = holdRead(runtime, join(agent, c.late, "meta.json"));
    watcher(SESSION_DIR_GLOB).fire(c.kind, vscode.Uri.file(join(agent, c.late)));
    await held.read;
    const changed = nextRefresh(tree);
    await c.then(runtime);
    await changed;
    held.release();

    // A later event of another session: its refresh comes after whatever the held read caused.
    const probe = tree.find(runtimes.all()[0]!, "code", "session-0")!;
    for (let refresh = nextRefresh(tree); ; refresh = nextRefresh(tree)) {
      watcher(META_GLOB).fire("change", vscode.Uri.file(join(agent, "sessions", "session-0", "meta.json")));
      const named = await refresh;
      if (Array.isArray(named) && named.includes(probe)) break;
    }
    const node = tree.find(runtimes.all()[0]!, "code", "session-1");
    const shown = (await rows(tree)).filter((r) => r.item.sessionId === "session-1");
    if (!c.expect.shown) {
      assert.equal(node, undefined, "the deleted session is known again");
      assert.deepEqual(shown, []);
      return;
    }
    assert.equal(node?.item.archived, c.expect.archived, "the row's area");
    assert.equal(shown.length, 1, "the row is shown once");
    const groups = (await tree.getChildren()).map((n) => n.kind);
    assert.equal(groups.includes("archived"), c.expect.archived, `the groups: ${groups.join(", ")}`);
  });
}
