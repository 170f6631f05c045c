import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Sessions, sessionPaths } from "../../../core/storage";
import type { SessionNode } from "../../../extension/sessions/nodes";
import { PAGE_SIZE } from "../../../extension/sessions/folder-model";
import { FIRST_ROWS } from "../../../extension/sessions/tree";
import { DAY, manySessions } from "../../support/many-sessions";
import { tempDir } from "../../support/temp";
import { folder, setFolders } from "../../support/extension/helpers";
import { ids, openWindow } from "../../support/extension/tree-window";

test("the next window draws the sessions the last one showed first, each as its meta.json says now, without the first page's pass; the full list adds the newer", async (t) => {
  const root = tempDir(t);
  const file = join(tempDir(t), "storage", "sessions-first-rows.json");
  const now = Date.now();
  // 300 sessions: the newest 60 today (a minute apart), the rest a day apart before; one archived.
  const all = await manySessions(root, 300, (i) => (i < 60 ? now - (i + 5) * 60_000 : now - (i - 58) * DAY));
  const store = new Sessions({ root });
  await store.archive({ agentId: "code", sessionId: all[299]! });
  await store.close();
  setFolders([folder(root)]);

  const first = openWindow(t, file);
  const [today] = await first.tree.getChildren();
  assert.deepEqual(ids(await first.tree.getChildren(today)), all.slice(0, PAGE_SIZE), "the first window's Today");
  await first.close();
  const written = JSON.parse(readFileSync(file, "utf8")) as {
    version: number;
    folders: Record<string, { live: { sessionId: string }[]; archived: { sessionId: string }[] }>;
  };
  const rows = written.folders[folder(root).uri.toString()]!;
  assert.deepEqual(
    rows.live.map((r) => r.sessionId),
    all.slice(0, FIRST_ROWS),
    "each agent's newest live sessions, as many as a first page",
  );
  assert.deepEqual(
    rows.archived.map((r) => r.sessionId),
    [all[299]],
  );
  assert.doesNotMatch(readFileSync(file, "utf8"), /Session \d/, "ids only, never a title");

  // Between the windows, another process renames one and starts a session newer than all.
  const renamed = sessionPaths(root, "code", all[2]!).meta;
  writeFileSync(renamed, JSON.stringify({ ...JSON.parse(readFileSync(renamed, "utf8")), title: "Renamed elsewhere" }));
  await newerSession(root, "newer-elsewhere");

  const second = openWindow(t, file);
  const [today2] = await second.tree.getChildren();
  assert.deepEqual(
    second.asked.map((f) => [f.sessions?.length, f.limit, f.archived === true]),
    [
      [FIRST_ROWS, undefined, false],
      [1, undefined, true],
    ],
    "only the remembered sessions are read before the first row: no first page's pass",
  );
  const drawn = (await second.tree.getChildren(today2)) as SessionNode[];
  assert.deepEqual(ids(drawn), all.slice(0, PAGE_SIZE), "the remembered rows; nothing added before the full list");
  assert.equal(
    second.tree.getTreeItem(drawn.find((n) => n.item.sessionId === all[2])!).label,
    "Renamed elsewhere",
    "a row shows its meta.json as it is now",
  );

  // The full list: the newer session on top.
  const redrawn = new Promise<void>((resolve) => {
    const sub = second.tree.onDidChangeTreeData(() => (sub.dispose(), resolve()));
  });
  second.release();
  await second.tree.ready;
  await redrawn;
  const [today3] = await second.tree.getChildren();
  assert.deepEqual(ids(await second.tree.getChildren(today3)).slice(0, 2), ["newer-elsewhere", all[0]]);
  await second.close();
  assert.equal(
    (JSON.parse(readFileSync(file, "utf8")) as typeof written).folders[folder(root).uri.toString()]!.live[0]!.sessionId,
    "newer-elsewhere",
    "and it is remembered for the window after",
  );
});

test("when a remembered session is gone (deleted while no window watched), the first page's pass draws the first rows", async (t) => {
  const root = tempDir(t);
  const file = join(tempDir(t), "sessions-first-rows.json");
  const now = Date.now();
  const all = await manySessions(root, 80, (i) => now - (i + 5) * 60_000);
  setFolders([folder(root)]);
  const first = openWindow(t, file);
  await first.tree.getChildren();
  await first.close();

  rmSync(sessionPaths(root, "code", all[1]!).dir, { recursive: true });
  await newerSession(root, "newer-elsewhere");
  const second = openWindow(t, file);
  const [today] = await second.tree.getChildren();
  assert.deepEqual(
    second.asked.map((f) => [f.sessions?.length, f.limit, f.archived === true]),
    [
      [FIRST_ROWS, undefined, false],
      [0, undefined, true],
      [undefined, FIRST_ROWS, false],
      [undefined, PAGE_SIZE + 1, true],
    ],
    "the remembered sessions, then the pass",
  );
  assert.deepEqual(
    ids(await second.tree.getChildren(today)),
    ["newer-elsewhere", ...all.filter((id) => id !== all[1])].slice(0, PAGE_SIZE),
    "the pass's rows: the newer session in, the deleted one out",
  );
});

/** A session written by another process now (newer than every fixture). */
async function newerSession(root: string, id: string): Promise<void> {
  const writer = new Sessions({ root });
  const newer = writer.create({ id, agentId: "code" });
  newer.append("user/message", { content: [{ type: "text", text: "hello" }] }, { surface: "append" });
  await writer.close();
}

test("remembered rows that are unreadable, too large or of another form are not used: the first page's pass, said once in the log", async (t) => {
  const root = tempDir(t);
  const now = Date.now();
  const all = await manySessions(root, 20, (i) => now - (i + 5) * 60_000);
  setFolders([folder(root)]);
  const dir = tempDir(t);
  const key = folder(root).uri.toString();
  const bad = {
    "not json": "{ nope",
    "another form": JSON.stringify({ version: 2, folders: { [key]: { live: [], archived: [] } } }),
    "a ref not a string": JSON.stringify({ version: 1, folders: { [key]: { live: [{ agentId: 1 }], archived: [] } } }),
    "too large": JSON.stringify({ version: 1, folders: {}, pad: "x".repeat(2 << 20) }),
  };
  for (const [name, text] of Object.entries(bad)) {
    const file = join(dir, `${name}.json`);
    writeFileSync(file, text);
    const logged: string[] = [];
    const window = openWindow(t, file, logged);
    const [today] = await window.tree.getChildren();
    assert.deepEqual(
      window.asked.map((f) => [f.sessions, f.limit]),
      [
        [undefined, FIRST_ROWS],
        [undefined, PAGE_SIZE + 1],
      ],
      `${name}: the first page's pass`,
    );
    assert.deepEqual(ids(await window.tree.getChildren(today)), all, name);
    assert.equal(logged.length, 1, `${name}: ${logged.join(" | ")}`);
    assert.match(logged[0]!, /remembered rows .*lists from disk/);
    await window.close();
    assert.doesNotThrow(() => JSON.parse(readFileSync(file, "utf8")), `${name}: replaced by a good file`);
  }
});
