// A workspace's first window at scale lists the Sessions tree's first pages on a worker thread running
// dist/first-page-worker.js (extension/sessions/off-thread-pages.ts; issue 20). This test runs the built worker
// (`npm test` builds first) on a real store and compares its pages with the store's own, and checks the VSIX ships it.
import assert from "node:assert/strict";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { listFirstPagesOffThread } from "../../core/runtime/first-pages";
import { Sessions } from "../../core/storage";
import { FIRST_PAGE_WORKER } from "../../extension/sessions/off-thread-pages";
import { DAY, manySessions } from "../support/many-sessions";
import { tempRoot } from "../support/storage/helpers";
import { PROJECT_ROOT } from "../support/workbench/code-server";

const dist = join(PROJECT_ROOT, "dist");
const FILTERS = [
  { verifyLogs: true, limit: 3 },
  { archived: true, verifyLogs: true, limit: 3 },
];

test("the built worker lists a folder's first pages as its store does; the bundle names it and the VSIX ships it", async (t) => {
  const root = tempRoot(t);
  await manySessions(root, 5, (i) => Date.now() - DAY - i * 60_000);
  const sessions = new Sessions({ root });
  const expected = await Promise.all(FILTERS.map((filter) => sessions.list(filter)));
  await sessions.close();
  const script = join(dist, FIRST_PAGE_WORKER);
  let timer: NodeJS.Timeout | undefined;
  const listed = await Promise.race([
    listFirstPagesOffThread(script, [root], FILTERS).pages(root)!,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no answer in 60 s")), 60_000))),
  ]).finally(() => clearTimeout(timer));
  assert.equal(listed.real, root);
  assert.deepEqual(listed.pages, expected);
  assert.deepEqual(
    listed.pages.map((page) => page.map((item) => item.sessionId)),
    [["s0000", "s0001", "s0002"], []],
  );
  assert.ok(statSync(script).size < 50_000, "the worker carries the store's list, not the extension");
  assert.ok(readFileSync(join(dist, "extension.js"), "utf8").includes(`"${FIRST_PAGE_WORKER}"`), "the bundle names it");
  const shipped = readFileSync(join(PROJECT_ROOT, ".vscodeignore"), "utf8").split("\n");
  assert.ok(shipped.includes(`!dist/${FIRST_PAGE_WORKER}`), ".vscodeignore ships it");
});
