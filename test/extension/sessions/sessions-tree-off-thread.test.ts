import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { FirstPagePrefetch } from "../../../extension/sessions/first-page-prefetch";
import { FIRST_ROWS, PAGE_SIZE } from "../../../extension/sessions/page-sizes";
import { DAY, manySessions } from "../../support/many-sessions";
import { tempDir } from "../../support/temp";
import { folder, setFolders } from "../../support/extension/helpers";
import { ids, openWindow } from "../../support/extension/tree-window";

/** The worker's program as source, compiled on its thread by tsx's require hook. */
const WORKER = resolve(__dirname, "../../../core/storage/list/first-page-worker.ts");
const TSX = ["--require", "tsx/cjs"];

/** 300 sessions, the newest 60 today (a minute apart), the rest a day apart before. */
async function store(t: Parameters<typeof tempDir>[0]) {
  const root = tempDir(t);
  const now = Date.now();
  const all = await manySessions(root, 300, (i) => (i < 60 ? now - (i + 5) * 60_000 : now - (i - 58) * DAY));
  setFolders([folder(root)]);
  return { root, all };
}

test("a window's first rows come from the pages listed off the host's thread: no pass on it, the same rows", async (t) => {
  const { root, all } = await store(t);
  const prefetch = new FirstPagePrefetch(WORKER, [folder(root)], TSX);
  const taken: string[] = [];
  const window = openWindow(
    t,
    join(tempDir(t), "none.json"),
    [],
    (f, real) => (taken.push(real), prefetch.take(f, real)),
  );
  const [today] = await window.tree.getChildren();
  assert.deepEqual(taken, [root], "asked once, with the folder's real path");
  assert.deepEqual(window.asked, [], "no list on the host's thread before the first rows (the full list waits)");
  assert.deepEqual(ids(await window.tree.getChildren(today)), all.slice(0, PAGE_SIZE), "Today's first page");
  prefetch.end();
  await window.close();
});

test("pages that could not be listed off the thread (no worker, another real path) leave the first rows to the pass", async (t) => {
  const { root, all } = await store(t);
  for (const [name, prefetch, real] of [
    ["no worker", new FirstPagePrefetch(join(root, "no-such-worker.js"), [folder(root)]), root],
    ["another real path", new FirstPagePrefetch(WORKER, [folder(root)], TSX), `${root}-moved`],
  ] as const) {
    const window = openWindow(t, join(tempDir(t), "none.json"), [], (f) => prefetch.take(f, real));
    const [today] = await window.tree.getChildren();
    assert.deepEqual(
      window.asked.map((f) => [f.limit, f.archived === true]),
      [
        [FIRST_ROWS, false],
        [PAGE_SIZE + 1, true],
      ],
      `${name}: the pass on the host's thread`,
    );
    assert.deepEqual(ids(await window.tree.getChildren(today)), all.slice(0, PAGE_SIZE), name);
    prefetch.end();
    await window.close();
  }
});

test("with remembered rows, the pages listed off the thread are never asked for", async (t) => {
  const { root, all } = await store(t);
  const file = join(tempDir(t), "sessions-first-rows.json");
  const first = openWindow(t, file);
  await first.tree.getChildren();
  await first.close();
  let asked = 0;
  const prefetch = new FirstPagePrefetch(WORKER, [folder(root)], TSX);
  const second = openWindow(t, file, [], (f, real) => (asked++, prefetch.take(f, real)));
  const [today] = await second.tree.getChildren();
  assert.equal(asked, 0);
  assert.deepEqual(ids(await second.tree.getChildren(today)), all.slice(0, PAGE_SIZE));
  prefetch.end();
  await second.close();
});

test("no folder, a virtual folder or folders in a form the API never gives start nothing, and never throw while the bundle loads", () => {
  const virtual = { uri: { scheme: "vscode-vfs", fsPath: "/x" }, name: "x", index: 0 };
  for (const folders of [[], [virtual], "not a list", [null]]) {
    const prefetch = new FirstPagePrefetch(WORKER, folders as never, TSX);
    assert.equal(prefetch.take(folder("/x"), "/x"), undefined, JSON.stringify(folders));
    prefetch.end();
  }
});
