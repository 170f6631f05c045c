import assert from "node:assert/strict";
import { symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { PAGE_SIZE } from "../../../extension/sessions/folder-model";
import { offThreadPages } from "../../../extension/sessions/off-thread-pages";
import { FIRST_ROWS } from "../../../extension/sessions/tree";
import { DAY, manySessions } from "../../support/many-sessions";
import { tempDir } from "../../support/temp";
import { folder, setFolders } from "../../support/extension/helpers";
import { ids, openWindow } from "../../support/extension/tree-window";

/** The worker's program as source, compiled on its thread by tsx's require hook. */
const WORKER = resolve(__dirname, "../../../core/storage/list/first-page-worker.ts");
const TSX = ["--require", "tsx/cjs"];
/** The live sessions from which this test's windows go off the thread (the product's bound is OFF_THREAD_MIN). */
const MIN = 200;

/** 300 sessions, the newest 60 today (a minute apart), the rest a day apart before. */
async function store(t: Parameters<typeof tempDir>[0]) {
  const root = tempDir(t);
  const now = Date.now();
  const all = await manySessions(root, 300, (i) => (i < 60 ? now - (i + 5) * 60_000 : now - (i - 58) * DAY));
  setFolders([folder(root)]);
  return { root, all };
}

const passOnThread = [
  [FIRST_ROWS, false],
  [PAGE_SIZE + 1, true],
];

test("a first window at scale draws its first rows from a worker thread: no list on the host's thread before them, the same rows", async (t) => {
  const { root, all } = await store(t);
  const roots: string[] = [];
  const pages = offThreadPages(WORKER, { min: MIN, execArgv: TSX });
  const window = openWindow(t, join(tempDir(t), "none.json"), [], (r) => (roots.push(r), pages(r)));
  const [today] = await window.tree.getChildren();
  assert.deepEqual(roots, [root], "asked once, with the folder's real path");
  assert.deepEqual(window.asked, [], "nothing listed on the host's thread before the first rows (the full list waits)");
  assert.deepEqual(ids(await window.tree.getChildren(today)), all.slice(0, PAGE_SIZE), "Today's first page");
  await window.close();
});

test("a small store, a worker that is not there or fails, or pages of another real path leave the first rows to the pass on the host's thread", async (t) => {
  const { root, all } = await store(t);
  const broken = join(tempDir(t), "broken-worker.js");
  writeFileSync(broken, "throw new Error('a broken worker');");
  // The folder reached through a link: the worker lists the link's real path, which is not the one it was given.
  const link = join(tempDir(t), "link");
  symlinkSync(root, link);
  const throughLink = offThreadPages(WORKER, { min: MIN, execArgv: TSX });
  for (const [name, offThread] of [
    ["fewer sessions than the bound", offThreadPages(WORKER, { min: 301, execArgv: TSX })],
    ["no worker script", offThreadPages(join(root, "no-such-worker.js"), { min: MIN })],
    ["a worker that throws", offThreadPages(broken, { min: MIN })],
    ["another real path", () => throughLink(link)],
  ] as const) {
    const window = openWindow(t, join(tempDir(t), "none.json"), [], offThread);
    const [today] = await window.tree.getChildren();
    assert.deepEqual(
      window.asked.map((f) => [f.limit, f.archived === true]),
      passOnThread,
      `${name}: the pass on the host's thread`,
    );
    assert.deepEqual(ids(await window.tree.getChildren(today)), all.slice(0, PAGE_SIZE), name);
    await window.close();
  }
});

test("with remembered rows no worker is started", async (t) => {
  const { all } = await store(t);
  const file = join(tempDir(t), "sessions-first-rows.json");
  const first = openWindow(t, file, [], offThreadPages(WORKER, { min: MIN, execArgv: TSX }));
  await first.tree.getChildren();
  await first.close();
  let started = 0;
  const pages = offThreadPages(WORKER, { min: MIN, execArgv: TSX });
  const second = openWindow(t, file, [], (r) => (filters) => (started++, pages(r)(filters)));
  const [today] = await second.tree.getChildren();
  assert.equal(started, 0);
  assert.deepEqual(ids(await second.tree.getChildren(today)), all.slice(0, PAGE_SIZE));
  await second.close();
});
