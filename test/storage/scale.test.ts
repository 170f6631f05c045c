import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { SessionChange } from "../../core/session";
import { Sessions, sessionPaths } from "../../core/storage";
import { generateSession } from "../support/storage/generate";
import { assistant, countingFs, tempRoot, user } from "../support/storage/helpers";

test(
  "opening, model context and paging never read an old segment; resident memory stays flat at 2k/10k/50k",
  { timeout: 90_000 },
  async (t) => {
    const root = tempRoot(t);
    const writer = new Sessions({ root, batchWindowMs: 50 });
    const resident: number[] = [];
    for (const [i, size] of [2_000, 10_000, 50_000].entries()) {
      const s = writer.create({ id: `h${i}` });
      await generateSession(writer, s, size, { scale: 0.02 });
      await writer.store.dispose(s);
      await writer.persistence.release(s);
      const fs = countingFs();
      const reader = new Sessions({ root, fs });
      const { session } = await reader.open({ sessionId: `h${i}` });
      session.deriveMessages();
      const segDir = sessionPaths(root, "default", `h${i}`).segments;
      const segments = readdirSync(segDir).sort();
      const segReads = fs.reads.filter((p) => p.startsWith(segDir));
      assert.deepEqual(
        segReads,
        [join(segDir, segments.at(-1)!)],
        "open reads only the latest segment (for its summary)",
      );
      resident.push(reader.residentBytes(session));
      assert.ok(session.size <= 136, `memory holds ${session.size} events, not the history`);
      fs.reads.length = 0;
      const page = await reader.messages({ sessionId: `h${i}` });
      assert.equal(fs.reads.length, 0, "Active of a hot session comes from memory");
      const older = await reader.messages({ sessionId: `h${i}` }, { beforeSequence: page.firstSeq });
      assert.deepEqual(fs.reads, [join(segDir, segments.at(-1)!)], "one segment per page");
      assert.equal(older.lastSeq, page.firstSeq - 1);
      fs.reads.length = 0;
      const oldest = await reader.messages({ sessionId: `h${i}` }, { beforeSequence: 2 });
      assert.equal(oldest.firstSeq, 1);
      assert.equal(fs.reads.length, 1);
      assert.equal(oldest.hasOlder, false);
      await reader.close();
    }
    await writer.close();
    // Bounded by one Active window (~130 events), whatever the history length.
    assert.ok(Math.max(...resident) < 64 * 1024, `resident bytes ${resident.join(" / ")}`);
    assert.ok(resident[2]! < 2 * Math.max(resident[0]!, resident[1]!), `resident bytes ${resident.join(" / ")}`);
  },
);

test("a 5 MiB tool output is stored whole and read back byte-exact (Active and segment)", async (t) => {
  const root = tempRoot(t);
  const big = Array.from({ length: 5 * 1024 * 1024 }, (_, i) => String.fromCharCode(32 + ((i * 7919) % 95))).join("");
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "big" });
  s.append("tool/result", { toolCallId: "c", toolName: "run", content: [{ type: "text", text: big }] });
  user(s, "after");
  await a.close();
  const b = new Sessions({ root });
  const { session } = await b.open({ sessionId: "big" });
  const text = (e: { data: unknown }) => (e.data as { content: { text: string }[] }).content[0]!.text;
  assert.equal(text(session.event(1)!), big);
  await b.closePrefix(session, 2, "sum");
  const page = await b.messages({ sessionId: "big" }, { beforeSequence: 3 });
  assert.equal(text(page.events[0]!), big);
  await b.close();
});

test("lists read only meta.json, merge hot over cold, sort by updatedAt, and a change feed reports changes", async (t) => {
  const root = tempRoot(t);
  let clock = 1_000_000;
  const a = new Sessions({ root, batchWindowMs: 1, clock: () => clock });
  for (let i = 0; i < 5; i++) {
    const s = a.create({ id: `s${i}` });
    user(s, `hello ${i}`);
    assistant(s, "answer", { model: `model-${i}` });
  }
  await a.close();
  const fs = countingFs();
  const b = new Sessions({ root, fs, batchWindowMs: 1 });
  const changes: SessionChange[] = [];
  b.onChange((c) => changes.push(c));
  const cold = await b.list();
  assert.equal(cold.length, 5);
  assert.ok(
    fs.reads.every((p) => p.endsWith("meta.json")),
    fs.reads.join(),
  );
  assert.equal(fs.reads.length, 5);
  assert.equal(cold.find((i) => i.sessionId === "s4")!.model, "model-4");
  const { session } = await b.open({ sessionId: "s1" });
  await b.rename({ sessionId: "s1" }, "Renamed by user");
  const listed = await b.list();
  assert.equal(listed[0]!.sessionId, "s1", "newest first");
  assert.equal(listed[0]!.hot, true);
  assert.equal(listed[0]!.title, "Renamed by user");
  assert.equal(listed[0]!.titleSource, "user");
  assert.ok(changes.some((c) => c.kind === "updated" && c.sessionId === "s1"));

  // fork hard-links segments
  for (let i = 0; i < 10; i++) user(session, `more ${i}`);
  await b.flush(session);
  await b.closePrefix(session, 8, "sum");
  const fork = await b.fork({ sessionId: "s1" }, { newId: "s1-fork" });
  assert.deepEqual(fork.forkedFrom, { sessionId: "s1", agentId: "default", atSeq: session.lastSeq });
  const seg = (id: string) => join(sessionPaths(root, "default", id).segments, "000000000001-000000000008.jsonl.zst");
  assert.equal(statSync(seg("s1")).ino, statSync(seg("s1-fork")).ino);
  const early = await b.fork({ sessionId: "s1" }, { atSeq: 5, newId: "early" });
  assert.equal(early.messageCount, 4);
  const { session: forked } = await b.open({ sessionId: "early" });
  // Events 1..5, then the fork's own title event.
  assert.equal(forked.lastSeq, 6);
  assert.ok(changes.some((c) => c.kind === "created" && c.sessionId === "early"));

  await b.archive({ sessionId: "s1" });
  assert.equal(b.store.get("s1"), undefined);
  assert.deepEqual(
    (await b.list({ archived: true })).map((i) => i.sessionId),
    ["s1"],
  );
  assert.ok(!(await b.list()).some((i) => i.sessionId === "s1"));
  const archivedOpen = await b.open({ sessionId: "s1" });
  assert.match(archivedOpen.report.readOnly ?? "", /archived/);
  await b.store.dispose(archivedOpen.session);
  await b.unarchive({ sessionId: "s1" });
  assert.ok((await b.list()).some((i) => i.sessionId === "s1" && !i.archived));
  await b.delete({ sessionId: "s2" });
  assert.ok(!existsSync(sessionPaths(root, "default", "s2").dir));
  assert.ok(changes.some((c) => c.kind === "removed" && c.sessionId === "s2"));
  assert.throws(() => b.create({ id: "s3" }), /already exists on disk/);
  await b.close();
});
