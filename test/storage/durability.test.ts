import assert from "node:assert/strict";
import { readFileSync, readdirSync, appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Sessions, sessionPaths } from "../../core/storage";
import { assistant, countingFs, tempRoot, user } from "../support/storage/helpers";

test("a killed compaction (segment created, Active not rewritten) loses nothing and duplicates nothing", async (t) => {
  const root = tempRoot(t);
  const fs = countingFs();
  let crash = false;
  const crashing = {
    ...fs,
    rename: async (from: string, to: string) => {
      if (crash && to.endsWith("active.jsonl")) throw new Error("simulated crash before the Active rewrite");
      return fs.rename(from, to);
    },
  };
  const a = new Sessions({ root, fs: crashing, batchWindowMs: 1 });
  const s = a.create({ id: "c" });
  for (let i = 0; i < 20; i++) user(s, `m${i}`);
  await a.flush(s);
  crash = true;
  await assert.rejects(a.closePrefix(s, 15, "sum"));
  const paths = sessionPaths(root, "default", "c");
  assert.deepEqual(readdirSync(paths.segments), ["000000000001-000000000015.jsonl.zst"]);
  // A second process opens it (the first one is gone: its lock is taken over as stale).
  const b = new Sessions({ root, lockStaleMs: -1 });
  const { session, report } = await b.open({ sessionId: "c" });
  assert.ok(
    report.actions.some((x) => x.startsWith("finished an interrupted compaction: dropped 15")),
    report.actions.join(),
  );
  assert.equal(session.baseSeq, 15);
  assert.deepEqual(
    session.events().map((e) => e.seq),
    [16, 17, 18, 19, 20],
  );
  const older = await b.messages({ sessionId: "c" }, { beforeSequence: 16 });
  assert.deepEqual(
    older.events.map((e) => e.seq),
    Array.from({ length: 15 }, (_, i) => i + 1),
  );
  assert.equal(readFileSync(paths.active, "utf8").split("\n").filter(Boolean).length, 5);
  await b.close();
});

test("injected write and fsync failures: the batch is kept and retried, the file never holds half a batch", async (t) => {
  const root = tempRoot(t);
  const fs = countingFs();
  const errors: Error[] = [];
  const a = new Sessions({ root, fs, batchWindowMs: 1, retryMs: 1 });
  a.persistence.onError((e) => errors.push(e));
  const s = a.create({ id: "w" });
  user(s, "first");
  await a.flush(s);
  const path = sessionPaths(root, "default", "w").active;
  const before = readFileSync(path);
  for (const kind of ["write", "sync"] as const) {
    fs.fail[kind] = 1;
    for (let i = 0; i < 5; i++) user(s, `${kind} ${i}`);
    await a.flush(s); // retries inside flush
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).seq);
    assert.deepEqual(
      lines,
      Array.from({ length: s.lastSeq }, (_, i) => i + 1),
      `${kind}: no duplicate or missing seq`,
    );
  }
  assert.ok(errors.length >= 2);
  assert.ok(readFileSync(path).subarray(0, before.length).equals(before));
  // A failure that outlasts flush's attempts rejects it, and the half-written bytes are cut back.
  fs.fail.write = 100;
  user(s, "doomed for now");
  await assert.rejects(a.flush(s), /injected write failure/);
  assert.ok(a.persistence.writerStats(s)!.queued >= 1, "the failed batch stays queued");
  fs.fail.write = 0;
  await a.flush(s);
  const seqs = readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).seq);
  assert.deepEqual(
    seqs,
    Array.from({ length: s.lastSeq }, (_, i) => i + 1),
  );
  await a.close();
});

test("a torn tail is cut back to the last valid record and reported", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "t" });
  for (let i = 0; i < 4; i++) user(s, `m${i}`);
  await a.close();
  const path = sessionPaths(root, "default", "t").active;
  appendFileSync(path, '{"seq":5,"time":1,"type":"user/mess');
  const b = new Sessions({ root });
  const { session, report } = await b.open({ sessionId: "t" });
  assert.equal(session.lastSeq, 4);
  assert.ok(report.repaired);
  assert.match(report.actions.join(), /truncated torn tail: 35 bytes after seq 4 \(partial line/);
  assert.ok(readFileSync(path, "utf8").endsWith("}\n"));
  await b.close();
});

test("damage: corrupt middle line opens read-only with every byte kept", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "d" });
  for (let i = 0; i < 5; i++) user(s, `m${i}`);
  await a.close();
  const path = sessionPaths(root, "default", "d").active;
  const lines = readFileSync(path, "utf8").split("\n");
  lines[2] = "{garbage";
  writeFileSync(path, lines.join("\n"));
  const bytes = readFileSync(path);
  const b = new Sessions({ root });
  const { session, report } = await b.open({ sessionId: "d" });
  assert.match(report.readOnly ?? "", /damaged storage.*unparsable record.*followed by seq 4/);
  assert.equal(session.lastSeq, 2);
  assert.throws(() => user(session, "x"), /read-only/);
  await b.close();
  assert.ok(readFileSync(path).equals(bytes));
});

test("damage: a truncated segment opens read-only; a corrupt meta.json is rebuilt; a garbage draft is kept aside", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "x" });
  for (let i = 0; i < 10; i++) assistant(s, `m${i}`);
  s.append("session/title", { title: "Named", messageSeqs: [], source: { kind: "user" } });
  await a.flush(s);
  await a.closePrefix(s, 11, "sum");
  user(s, "after");
  await a.close();
  const p = sessionPaths(root, "default", "x");
  writeFileSync(p.meta, "{not json");
  writeFileSync(p.draft, "\u0000\u0001garbage");
  const listed = (await new Sessions({ root }).list())[0]!;
  assert.equal(listed.title, "Named"); // from the segment footer: title survived compaction
  assert.equal(listed.messageCount, 11);
  const b = new Sessions({ root });
  const { session, report } = await b.open({ sessionId: "x" });
  assert.equal(session.title.title, "Named");
  assert.ok(
    report.actions.some((x) => x.startsWith("kept an unreadable draft as messages/assistant_message.json.corrupt-")),
    report.actions.join(),
  );
  assert.ok(report.actions.includes("rebuilt missing or corrupt meta.json"));
  assert.equal(JSON.parse(readFileSync(p.meta, "utf8")).messageCount, 11);
  await b.close();
  const seg = join(p.segments, "000000000001-000000000011.jsonl.zst");
  const full = readFileSync(seg);
  writeFileSync(seg, full.subarray(0, full.length - 20));
  const c = new Sessions({ root });
  const opened = await c.open({ sessionId: "x" });
  assert.match(opened.report.readOnly ?? "", /segment 000000000001-000000000011.jsonl.zst/);
  assert.equal(opened.session.lastSeq, 12);
  await c.close();
  assert.equal(readFileSync(seg).length, full.length - 20);
});
