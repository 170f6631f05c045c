import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { test } from "node:test";
import { Sessions, sessionPaths } from "../../core/storage";
import { DAY, manySessions, touchAll } from "../support/many-sessions";
import { countingFs, tempRoot } from "../support/storage/helpers";

/** A day ago: a session made by a test now is newer than every fixture. */
const NOW = Date.now() - DAY;
const LIMIT = 50;
/** Session i last active i hours ago, in a scrambled order of ids (the folder order says nothing). */
const hoursAgo = (count: number) => (i: number) => NOW - ((i * 7919) % count) * 3_600_000;

async function firstPage(root: string, limit = LIMIT) {
  const fs = countingFs();
  const sessions = new Sessions({ root, fs });
  const page = await sessions.list({ verifyLogs: true, limit });
  const metaReads = fs.reads.filter((p) => p.endsWith("meta.json")).length;
  const full = await sessions.list({ verifyLogs: true });
  await sessions.close();
  return { page, metaReads, full };
}

test("a first page reads about `limit` meta.json files, at 100 sessions as at 500, and is the full list's first page", async (t) => {
  const reads: number[] = [];
  for (const count of [100, 500]) {
    const root = tempRoot(t);
    await manySessions(root, count, hoursAgo(count));
    const { page, metaReads, full } = await firstPage(root);
    assert.deepEqual(
      page.map((i) => i.sessionId),
      full.slice(0, LIMIT).map((i) => i.sessionId),
    );
    assert.deepEqual(page, full.slice(0, LIMIT), "the same items, field for field");
    reads.push(metaReads);
  }
  // One read per row: the next folder's mtime is older than the last row (an hour apart, beyond the slack).
  assert.deepEqual(reads, [LIMIT, LIMIT], `meta.json reads at 100 and 500 sessions: ${reads.join(", ")}`);
});

test("a store whose mtimes say nothing (copied at once) is read whole, and its first page is still the full list's", async (t) => {
  const root = tempRoot(t);
  const ids = await manySessions(root, 300, hoursAgo(300));
  touchAll(root, ids, NOW + DAY);
  const { page, metaReads, full } = await firstPage(root);
  assert.deepEqual(page, full.slice(0, LIMIT));
  assert.equal(metaReads, 300);
});

test("a meta.json rewritten later than its activity (opened, repaired) costs one more read, never a wrong row", async (t) => {
  const root = tempRoot(t);
  const ids = await manySessions(root, 200, hoursAgo(200));
  // The oldest sessions' meta.json files were written just now.
  touchAll(root, ids.slice(150), NOW + 60_000);
  const { page, metaReads, full } = await firstPage(root);
  assert.deepEqual(page, full.slice(0, LIMIT));
  assert.ok(metaReads <= LIMIT + 1 + 50, `${metaReads} reads`);
});

test("a first page leaves out a folder without a usable meta.json (the full list rebuilds or reports it) and takes hot sessions first", async (t) => {
  const root = tempRoot(t);
  const ids = await manySessions(root, 20, hoursAgo(20));
  writeFileSync(sessionPaths(root, "code", ids[0]!).meta, "{ not json");
  const sessions = new Sessions({ root, batchWindowMs: 60_000 });
  const hot = sessions.create({ id: "hot", agentId: "code" });
  hot.append("user/message", { content: [{ type: "text", text: "now" }] }, { surface: "append" });
  const page = await sessions.list({ verifyLogs: true, limit: 5 });
  const full = await sessions.list({ verifyLogs: true });
  await sessions.close();
  assert.equal(page[0]!.sessionId, "hot");
  assert.equal(page.length, 5);
  assert.ok(!page.some((i) => i.sessionId === ids[0]));
  assert.ok(
    full.some((i) => i.sessionId === ids[0]),
    "the full list rebuilds it from its log",
  );
  assert.deepEqual(
    page.map((i) => i.sessionId),
    full
      .filter((i) => i.sessionId !== ids[0])
      .slice(0, 5)
      .map((i) => i.sessionId),
  );
});

test("a first page holds the `limit` newest of each agent (a tree grouped by agent shows every agent from it), newest first across agents", async (t) => {
  const root = tempRoot(t);
  await manySessions(root, 80, hoursAgo(80), "code");
  // "ask" was last used before every "code" session: a page across agents would leave it out.
  await manySessions(root, 10, (i) => NOW - (200 + i) * 3_600_000, "ask");
  const sessions = new Sessions({ root });
  const page = await sessions.list({ verifyLogs: true, limit: LIMIT });
  const full = await sessions.list({ verifyLogs: true });
  await sessions.close();
  const of = (agentId: string) => full.filter((i) => i.agentId === agentId);
  assert.deepEqual(page, [...of("code").slice(0, LIMIT), ...of("ask")]);
});
