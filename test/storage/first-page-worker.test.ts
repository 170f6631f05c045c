import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { listFirstPagesOffThread, type FolderPages } from "../../core/runtime/first-pages";
import { holdsAtLeast } from "../../core/storage/list/session-dirs";
import { Sessions, sessionPaths } from "../../core/storage";
import { DAY, manySessions } from "../support/many-sessions";
import { tempRoot } from "../support/storage/helpers";

/** The worker's program as source: tsx's require hook compiles it (and what it imports) on the worker's thread. */
const WORKER = resolve(__dirname, "../../core/storage/list/first-page-worker.ts");
const TSX = ["--require", "tsx/cjs"];
const NOW = Date.now() - DAY;
const hoursAgo = (count: number) => (i: number) => NOW - ((i * 7919) % count) * 3_600_000;
const FILTERS = [
  { verifyLogs: true, limit: 20 },
  { archived: true, verifyLogs: true, limit: 5 },
];

/** Bounded: a worker that never answers fails the test instead of hanging it. */
function within<T>(promise: Promise<T> | undefined, ms = 60_000): Promise<T> {
  assert.ok(promise, "a promise for the root");
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer in ${ms} ms`)), ms))),
  ]);
}

test("off the host's thread, a folder's first pages are the ones its store lists on the thread: two agents, archived, a damaged folder", async (t) => {
  const root = tempRoot(t);
  const ids = await manySessions(root, 60, hoursAgo(60));
  await manySessions(root, 30, hoursAgo(30), "ask");
  mkdirSync(join(root, ".downcity", "agents", "code", "archived"));
  for (const id of ids.slice(0, 8))
    renameSync(sessionPaths(root, "code", id).dir, sessionPaths(root, "code", id, "archived").dir);
  writeFileSync(sessionPaths(root, "code", ids[20]!).meta, "{ not json");
  rmSync(sessionPaths(root, "code", ids[21]!).active);
  const sessions = new Sessions({ root });
  const onThread = await Promise.all(FILTERS.map((filter) => sessions.list(filter)));
  await sessions.close();
  const started = listFirstPagesOffThread(WORKER, [root], FILTERS, { execArgv: TSX });
  const { real, pages } = await within(started.pages(root));
  assert.equal(real, root);
  assert.deepEqual(pages, onThread, "field for field, in the same order");
  assert.deepEqual(
    pages.map((page) => page.length),
    [40, 5],
    "each agent's 20 newest live sessions (the damaged and logless folders left out) and 5 archived ones",
  );
  const code = new Set(pages[0]!.filter((i) => i.agentId === "code").map((i) => i.sessionId));
  assert.ok(!code.has(ids[20]!) && !code.has(ids[21]!), "no damaged or logless folder");
});

test("each root is answered on its own: its real path, an empty store, a linked store, a root that is not there", async (t) => {
  const root = tempRoot(t);
  await manySessions(root, 3, hoursAgo(3));
  const empty = tempRoot(t);
  const link = `${root}-link-${process.pid}`;
  symlinkSync(root, link);
  t.after(() => rmSync(link, { force: true }));
  // A workspace whose `.downcity` is a link to a store elsewhere lists nothing (as on the thread).
  const linkedStore = tempRoot(t);
  symlinkSync(join(root, ".downcity"), join(linkedStore, ".downcity"));
  const gone = join(empty, "not-there");
  const started = listFirstPagesOffThread(WORKER, [link, empty, linkedStore, gone], FILTERS, { execArgv: TSX });
  const viaLink: FolderPages = await within(started.pages(link));
  assert.equal(viaLink.real, root, "the real path, which the folder registry keys the runtime by");
  assert.deepEqual(
    viaLink.pages.map((p) => p.length),
    [3, 0],
  );
  assert.deepEqual((await within(started.pages(empty))).pages, [[], []]);
  assert.deepEqual((await within(started.pages(linkedStore))).pages, [[], []], "never listed through a link");
  await assert.rejects(within(started.pages(gone)), /off the host's thread: ENOENT/);
  assert.equal(started.pages(join(root, "other")), undefined, "a root it was not given");
});

test("a worker that cannot start, or is stopped before it answers, rejects every root it has not answered", async (t) => {
  const root = tempRoot(t);
  await manySessions(root, 3, hoursAgo(3));
  const missing = listFirstPagesOffThread(join(root, "no-such-worker.js"), [root], FILTERS);
  await assert.rejects(within(missing.pages(root)), /off the host's thread: .*Cannot find module/);
  const stopped = listFirstPagesOffThread(WORKER, [root], FILTERS, { execArgv: TSX });
  stopped.stop();
  await assert.rejects(within(stopped.pages(root)), /off the host's thread: stopped/);
  // A relative path is refused by Node at once: it rejects the same way.
  const relative = listFirstPagesOffThread("first-page-worker.js", [root], FILTERS);
  await assert.rejects(within(relative.pages(root)), /off the host's thread/);
});

test("holdsAtLeast counts live session folders across agents, up to the bound: files, archived ones and a missing store do not count", async (t) => {
  const root = tempRoot(t);
  assert.equal(holdsAtLeast(root, 1), false, "no store");
  await manySessions(root, 3, (i) => Date.now() - i * 60_000);
  await manySessions(root, 2, (i) => Date.now() - i * 60_000, "ask");
  const agents = join(root, ".downcity", "agents");
  mkdirSync(join(agents, "code", "archived", "a1"), { recursive: true });
  writeFileSync(join(agents, "code", "sessions", "stray-file"), "");
  writeFileSync(join(agents, "not-an-agent"), "");
  assert.equal(holdsAtLeast(root, 5), true);
  assert.equal(holdsAtLeast(root, 6), false);
  assert.equal(holdsAtLeast(root, 0), true);
});
