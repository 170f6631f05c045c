import assert from "node:assert/strict";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { test } from "node:test";
import { openSearchIndex } from "../../core/runtime/search";
import { searchWorkspace } from "../../core/runtime";
import type { SearchOptions } from "../../core/protocol/search";
import { SearchIndex } from "../../core/search";
import { createStorageContext } from "../../core/storage/context";
import { Sessions } from "../../core/storage";
import { tempDir } from "../support/temp";
import { bruteForce, collect, keyOf, makeCorpus, rng, turn } from "./corpus";

const QUERIES: Omit<SearchOptions, "limit">[] = [
  { query: "alpha" },
  { query: "Bravo" },
  { query: "x-ray" },
  { query: "naïve" },
  { query: "データ" },
  { query: "bar", word: true },
  { query: "oba" },
  { query: "read_file" },
  { query: "Title" },
  { query: "thinking", reasoning: true },
  { query: "summary" },
  { query: ", " },
  { query: "gol+f|zulu", regex: true },
  { query: "e(ch|l)o", regex: true },
  { query: "lima \\w+ mike", regex: true },
];

const hitsOf = async (root: string, indexDir: string | undefined, q: Omit<SearchOptions, "limit">) =>
  collect(
    searchWorkspace(indexDir === undefined ? { root } : { root, searchIndexDir: indexDir }, { ...q, limit: 100_000 }),
  );

test("through the index the hits are the same, in the same order, as the scan's and a brute-force decode", async (t) => {
  const root = tempDir(t);
  const indexDir = tempDir(t, "downcity-index-");
  await makeCorpus(root, { sessions: 14 });
  for (const q of QUERIES) {
    const scanned = await hitsOf(root, undefined, q);
    const indexed = await hitsOf(root, indexDir, q);
    assert.deepEqual(indexed, scanned, JSON.stringify(q));
    const want = await bruteForce(root, q);
    assert.deepEqual(new Set(indexed.filter((h) => h.location !== "draft").map(keyOf)), want, JSON.stringify(q));
  }
  // The index lives where the host said, never in the workspace.
  assert.equal(readdirSync(indexDir).length, 1);
  assert.deepEqual(readdirSync(join(root, ".downcity")), ["agents"]);
});

test("the index reads only what may match: a rare word reads one segment, not every log", async (t) => {
  const root = tempDir(t);
  await makeCorpus(root, { sessions: 14 });
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  const { session } = await sessions.open({ agentId: "code", sessionId: "s-4" });
  session.append("user/message", { content: [{ type: "text", text: "the wombat question" }] }, { surface: "append" });
  await sessions.flush(session);
  await sessions.closePrefix(session, session.lastSeq, "closed");
  turn(session, rng(3), 9);
  await sessions.close();
  const ctx = createStorageContext({ root });
  const reads: string[] = [];
  const counting = { ...ctx, fs: { ...ctx.fs, readFile: (p: string) => (reads.push(p), ctx.fs.readFile(p)) } };
  const index = new SearchIndex(counting, undefined);
  await index.refresh();
  const { searchSessions, indexPrefilter } = await import("../../core/search");
  const { unitCache } = await import("../../core/search/unit-cache");
  // Built from scratch (no files): every segment read once to index it.
  assert.ok(reads.filter((p) => p.includes("segments")).length > 1);
  const search = async () => {
    const before = reads.length;
    const hits = await collect(
      searchSessions({ ctx: counting, list: async () => [] }, { query: "wombat" }, indexPrefilter(index)),
    );
    assert.equal(hits.length, 1);
    assert.equal(hits[0]!.location, "closed");
    return reads.slice(before).filter((p) => p.includes("segments"));
  };
  unitCache.clear();
  assert.equal((await search()).length, 1, "then exactly one segment read for the hit");
  assert.equal((await search()).length, 0, "the next keystroke's read comes from the decoded-unit cache");
  unitCache.clear();
  assert.equal((await search()).length, 1);
});

test("a selective query plans from its candidate units' owners, not by visiting every session", async (t) => {
  const root = tempDir(t);
  await makeCorpus(root, { sessions: 40 });
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  for (const id of ["s-4", "s-10"]) {
    const { session } = await sessions.open({ agentId: "code", sessionId: id });
    session.append("user/message", { content: [{ type: "text", text: "the numbat question" }] }, { surface: "append" });
    await sessions.flush(session);
  }
  await sessions.close();
  const index = new SearchIndex(createStorageContext({ root }), undefined);
  const all = await index.refresh();
  const { createMatcher } = await import("../../core/search/matcher");
  const candidates = index.candidates(createMatcher({ query: "numbat" }));
  assert.ok(candidates.units && candidates.units.length >= 2, "a rare word lists its units");
  let visited = 0;
  const planned = [...index.plan(all, candidates, () => (visited++, true))].map((p) => p.session.sessionId);
  // Visited: the two owners and the sessions with a leftover draft (always read), not 40.
  const drafts = all.filter((s) => s.draft).length;
  assert.equal(visited, 2 + drafts, `visited ${visited} of ${all.length}`);
  // The same plan, in the same order, as walking every session.
  const walked = [...index.plan(all, { may: candidates.may })].map((p) => p.session.sessionId);
  assert.deepEqual(planned, walked);
  assert.deepEqual(planned.filter((id) => id === "s-4" || id === "s-10").sort(), ["s-10", "s-4"]);
});

test("the index follows appends, a segment close, fork, archive, unarchive, rename and delete, indexing only what changed", async (t) => {
  const root = tempDir(t);
  const indexDir = tempDir(t, "downcity-index-");
  await makeCorpus(root, { sessions: 6 });
  const ctx = createStorageContext({ root });
  const index = openSearchIndex(ctx, indexDir);
  await index.refresh();
  const counts = () => ({ ...index.stats });
  const query = async (q: string) => {
    const { searchSessions, indexPrefilter } = await import("../../core/search");
    return collect(searchSessions({ ctx, list: async () => [] }, { query: q, limit: 10_000 }, indexPrefilter(index)));
  };
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  t.after(() => sessions.close());
  const ref = { agentId: "code", sessionId: "s-1" };
  const { session } = await sessions.open(ref);

  // Append: only the appended bytes are indexed.
  let c0 = counts();
  session.append("user/message", { content: [{ type: "text", text: "quokka one" }] }, { surface: "append" });
  await sessions.flush(session);
  assert.deepEqual(
    (await query("quokka")).map((h) => [h.sessionId, h.location]),
    [["s-1", "context"]],
  );
  let c1 = counts();
  assert.equal(c1.segmentsIndexed, c0.segmentsIndexed);
  assert.ok(
    c1.activeBytesIndexed - c0.activeBytesIndexed < 400,
    `appended bytes only: ${c1.activeBytesIndexed - c0.activeBytesIndexed}`,
  );

  // Segment close: the message moves to closed history; one segment indexed.
  c0 = counts();
  await sessions.closePrefix(session, session.lastSeq, "closed");
  assert.deepEqual(
    (await query("quokka")).map((h) => [h.sessionId, h.location]),
    [["s-1", "closed"]],
  );
  c1 = counts();
  assert.equal(c1.segmentsIndexed - c0.segmentsIndexed, 1);

  // Rename: the title is found.
  await sessions.rename(ref, "Platypus plans");
  assert.deepEqual(
    (await query("platypus")).map((h) => [h.sessionId, h.kind]),
    [["s-1", "title"]],
  );

  // Fork: the fork's segments are hard links of the same files: none is indexed again.
  c0 = counts();
  const fork = await sessions.fork(ref);
  assert.deepEqual((await query("quokka")).map((h) => h.sessionId).sort(), [fork.sessionId, "s-1"].sort());
  assert.equal(counts().segmentsIndexed, c0.segmentsIndexed);

  // Archive and unarchive: moved, not re-indexed.
  await sessions.close();
  const other = new Sessions({ root });
  c0 = counts();
  await other.archive(ref);
  assert.deepEqual(
    (await query("quokka")).filter((h) => h.sessionId === "s-1").map((h) => h.archived),
    [true],
  );
  await other.unarchive(ref);
  assert.deepEqual(
    (await query("quokka")).filter((h) => h.sessionId === "s-1").map((h) => h.archived),
    [false],
  );
  assert.equal(counts().segmentsIndexed, c0.segmentsIndexed);

  // Delete: gone.
  await other.delete({ agentId: "code", sessionId: fork.sessionId });
  assert.deepEqual(
    (await query("quokka")).map((h) => h.sessionId),
    ["s-1"],
  );
  await other.close();

  // Reloaded from disk by a new process' index: nothing re-indexed, same hits.
  await index.idle();
  const reloaded = openSearchIndex(ctx, indexDir);
  await reloaded.refresh();
  assert.equal(reloaded.stats.loads, 1);
  assert.equal(reloaded.stats.segmentsIndexed, 0);
  assert.equal(reloaded.stats.activeBytesIndexed, 0);
});

test("a corrupt, forged or deleted index is rebuilt (or outvoted by the logs): never a wrong hit, never a lost one", async (t) => {
  const root = tempDir(t);
  const indexDir = tempDir(t, "downcity-index-");
  await makeCorpus(root, { sessions: 8 });
  const q = { query: "echo" };
  const want = await hitsOf(root, undefined, q);
  assert.ok(want.length > 0);
  // Built first (a search before the index exists scans and builds it in the background, with no end to wait on).
  await openSearchIndex(createStorageContext({ root }), indexDir).refresh();
  assert.deepEqual(await hitsOf(root, indexDir, q), want);
  const dir = join(indexDir, readdirSync(indexDir)[0]!);
  const snapshot = join(dir, "snapshot.bin");

  // Corrupt: bytes flipped in the postings.
  const data = readFileSync(snapshot);
  for (let i = data.length - 50; i < data.length; i++) data[i] = data[i]! ^ 0xff;
  writeFileSync(snapshot, data);
  assert.deepEqual(await hitsOf(root, indexDir, q), want);

  // Truncated.
  writeFileSync(snapshot, readFileSync(snapshot).subarray(0, 40));
  assert.deepEqual(await hitsOf(root, indexDir, q), want);

  // Forged journal: claims a session holds a word it does not, and names a session that does not exist.
  await hitsOf(root, indexDir, q);
  const journal = join(dir, "journal.jsonl");
  const nonce = JSON.parse(readFileSync(journal, "utf8").split("\n")[0]!).n;
  const forgedUnit = { t: "u", id: 999_999, key: "act:1:0:1", words: ["zebra"], n: nonce };
  writeFileSync(journal, `${readFileSync(journal, "utf8")}${JSON.stringify(forgedUnit)}\n`);
  assert.deepEqual(await hitsOf(root, indexDir, { query: "zebra" }), []);
  assert.deepEqual(await hitsOf(root, indexDir, q), want);

  // Forged, well-formed: a stranger's session record with the stamps of none on disk.
  await hitsOf(root, indexDir, q);
  const nonce2 = JSON.parse(readFileSync(journal, "utf8").split("\n")[0]!).n;
  const fake = {
    n: nonce2,
    t: "s",
    s: {
      agentId: "code",
      sessionId: "../../etc",
      area: "sessions",
      updatedAt: 9e12,
      messagesMtime: 0,
      activeStamp: "",
      activeIno: 0,
      activeSize: 0,
      activeUnits: [],
      segments: [],
      draft: true,
    },
  };
  writeFileSync(journal, `${readFileSync(journal, "utf8")}${JSON.stringify(fake)}\n`);
  const after = await hitsOf(root, indexDir, q);
  assert.deepEqual(after, want);

  // Deleted.
  rmSync(dir, { recursive: true });
  assert.deepEqual(await hitsOf(root, indexDir, q), want);
  // Rebuilt where the host said (awaited here: the search itself builds it in the background).
  await openSearchIndex(createStorageContext({ root }), indexDir).refresh();
  assert.deepEqual(readdirSync(indexDir), [basename(dir)]);
  assert.deepEqual(await hitsOf(root, indexDir, q), want);
});

test("a runtime with an index directory: its own writes are found at once, the index stays outside the workspace", async (t) => {
  const root = tempDir(t);
  const indexDir = tempDir(t, "downcity-index-");
  await makeCorpus(root, { sessions: 4 });
  const { createWorkspaceRuntime } = await import("../../core/runtime/create");
  const runtime = createWorkspaceRuntime({
    root,
    searchIndexDir: indexDir,
    providers: () => [],
    model: () => undefined,
    approval: () => ({ reads: "auto", edits: "ask", commands: "ask" }),
    tools: () => [],
    storage: { batchWindowMs: 1 },
  });
  t.after(() => runtime.close());
  assert.deepEqual(await collect(runtime.search({ query: "wallaby" })), []);
  // Written by this runtime between two searches (well inside the 2 s between full checks): reported, so re-indexed.
  await runtime.rename({ agentId: "code", sessionId: "s-1" }, "Wallaby notes");
  const live = runtime.create("code", "live-2");
  live.append("user/message", { content: [{ type: "text", text: "a wallaby, unflushed" }] }, { surface: "append" });
  const hits = await collect(runtime.search({ query: "wallaby" }));
  assert.deepEqual(hits.map((h) => [h.sessionId, h.kind]).sort(), [
    ["live-2", "user"],
    ["s-1", "title"],
  ]);
  const fork = await runtime.fork({ agentId: "code", sessionId: "s-1" });
  // The fork holds the copied title event and its own "Fork of Wallaby notes": both are found.
  const afterFork = await collect(runtime.search({ query: "wallaby" }));
  assert.equal(afterFork.length, 4);
  assert.deepEqual(
    afterFork
      .filter((h) => h.sessionId === fork.sessionId)
      .map((h) => h.snippet)
      .sort(),
    ["Fork of Wallaby notes", "Wallaby notes"],
  );
  assert.equal(readdirSync(indexDir).length, 1);
  assert.deepEqual(readdirSync(join(root, ".downcity")), ["agents"]);
});
