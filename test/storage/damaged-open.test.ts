import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Sessions, sessionPaths } from "../../core/storage";
import { encodeSegment } from "../../core/storage/segment-codec";
import { type FsSeam } from "../../core/storage/fs/fs-seam";
import { countingFs, tempRoot, user } from "../support/storage/helpers";

const lines = (path: string) => readFileSync(path, "utf8").split("\n").filter(Boolean);

/** Every file under `dir` with its bytes, for byte-identical checks. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const rel of readdirSync(dir, { recursive: true }).map(String).sort()) {
    try {
      out.set(rel, readFileSync(join(dir, rel)).toString("base64"));
    } catch {
      out.set(rel, "(dir)");
    }
  }
  return out;
}

async function closedSession(
  t: { after(fn: () => void): void },
  events = 5,
  extra?: (s: ReturnType<Sessions["create"]>) => void,
) {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "s" });
  for (let i = 0; i < events; i++) user(s, `m${i}`);
  extra?.(s);
  await a.close();
  return { root, paths: sessionPaths(root, "default", "s") };
}

test("failed open: an open that fails while planning changes no byte, every time", async (t) => {
  const { root, paths } = await closedSession(t, 3, (s) => {
    s.append("turn/start", { turn: 1 });
    s.append(
      "assistant/message",
      { content: [{ type: "tool-call", id: "c1", name: "read", arguments: {} }] },
      { surface: "append" },
    );
  });
  writeFileSync(paths.active, readFileSync(paths.active, "utf8") + '{"seq":6,"tim');
  writeFileSync(
    paths.draft,
    JSON.stringify({ draftId: "d", blocks: [{ type: "text", text: "x" }], time: 5, afterSeq: 5 }),
  );
  const before = snapshot(paths.dir);
  const real = countingFs();
  const seam: FsSeam = {
    ...real,
    lstat: async (path) =>
      path === paths.draft
        ? Promise.reject(Object.assign(new Error("injected lstat failure"), { code: "EIO" }))
        : real.lstat(path),
  };
  for (let i = 0; i < 3; i++) {
    const b = new Sessions({ root, fs: seam });
    await assert.rejects(
      b.open({ sessionId: "s" }),
      (e: Error) => e.message.includes(paths.draft) && /injected lstat failure/.test(e.message),
    );
    assert.equal(b.store.list().length, 0, "nothing registered");
    await b.close();
    assert.deepEqual(snapshot(paths.dir), before, `attempt ${i + 1}: byte-identical, no lock left`);
  }
  // Once the fault is gone the same open repairs everything, once.
  const c = new Sessions({ root });
  const { session, report } = await c.open({ sessionId: "s" });
  assert.ok(report.actions.some((a) => a.startsWith("truncated torn tail")));
  assert.ok(report.actions.some((a) => a.startsWith("recovered draft d")));
  assert.ok(report.actions.some((a) => a.startsWith("added 1 synthetic tool result(s)")));
  await c.close();
  assert.equal(lines(paths.active).length, session.lastSeq);
});

test("auxiliary files never block an intact log: writer.lock, the draft and meta.json as directories, invalid draft times", async (t) => {
  const cases: { name: string; damage: (p: ReturnType<typeof sessionPaths>) => void; action: RegExp }[] = [
    {
      name: "writer.lock is a directory",
      damage: (p) => mkdirSync(p.lock),
      action: /moved aside a writer\.lock that is not a file/,
    },
    { name: "draft is a directory", damage: (p) => mkdirSync(p.draft), action: /moved aside the draft \(not a file\)/ },
    {
      name: "meta.json is a directory",
      damage: (p) => (rmSync(p.meta), mkdirSync(p.meta)),
      action: /moved aside meta\.json \(not a file\)/,
    },
    ...[1.5, -1, 2 ** 60].map((time) => ({
      name: `draft time ${time}`,
      damage: (p: ReturnType<typeof sessionPaths>) =>
        writeFileSync(
          p.draft,
          JSON.stringify({ draftId: "d", blocks: [{ type: "text", text: "x" }], time, afterSeq: 5 }),
        ),
      action: /kept an unreadable draft as messages\/assistant_message\.json\.corrupt-\d+ \(draft is malformed/,
    })),
  ];
  for (const c of cases) {
    const { root, paths } = await closedSession(t);
    const log = readFileSync(paths.active);
    c.damage(paths);
    const b = new Sessions({ root });
    const { session, report } = await b.open({ sessionId: "s" });
    assert.equal(report.readOnly, undefined, c.name);
    assert.ok(
      report.actions.some((a) => c.action.test(a)),
      `${c.name}: ${report.actions.join(" | ")}`,
    );
    assert.equal(session.lastSeq, 5, c.name);
    user(session, "still writable");
    await b.close();
    assert.ok(readFileSync(paths.active).subarray(0, log.length).equals(log), `${c.name}: the log is intact`);
    assert.equal(JSON.parse(readFileSync(paths.meta, "utf8")).lastSeq, 6, `${c.name}: meta.json rebuilt`);
    const again = await new Sessions({ root }).open({ sessionId: "s" });
    assert.equal(again.report.repaired, false, `${c.name}: idempotent (${again.report.actions.join(" | ")})`);
  }
});

test("an unreadable log file names itself: active.jsonl as a directory", async (t) => {
  const { root, paths } = await closedSession(t);
  rmSync(paths.active);
  mkdirSync(paths.active);
  const b = new Sessions({ root });
  await assert.rejects(b.open({ sessionId: "s" }), (e: Error) => e.message.includes(paths.active));
  assert.equal(b.store.list().length, 0);
  await b.close();
  assert.ok(!existsSync(paths.lock), "the lock was released");
});

test("a segment that disagrees with Active's first events opens read-only and keeps both", async (t) => {
  const { root, paths } = await closedSession(t, 6);
  const events = lines(paths.active).map((l) => JSON.parse(l));
  const differing = events
    .slice(0, 3)
    .map((e, i) => (i === 1 ? { ...e, data: { content: [{ type: "text", text: "not what Active says" }] } } : e));
  mkdirSync(paths.segments);
  const seg = join(paths.segments, "000000000001-000000000003.jsonl.zst");
  writeFileSync(seg, await encodeSegment(differing, { kind: "summary", throughSeq: 3, text: "sum", messageCount: 3 }));
  const before = snapshot(paths.dir);
  const b = new Sessions({ root });
  const { report } = await b.open({ sessionId: "s" });
  assert.match(
    report.readOnly ?? "",
    /active\.jsonl seq 2 \(byte \d+\) differs from the same seq in segment 000000000001-000000000003\.jsonl\.zst; both kept/,
  );
  await b.close();
  assert.deepEqual(snapshot(paths.dir), before);
  // The same overlap, identical, is an interrupted compaction and is finished.
  writeFileSync(
    seg,
    await encodeSegment(events.slice(0, 3), { kind: "summary", throughSeq: 3, text: "sum", messageCount: 3 }),
  );
  const c = new Sessions({ root });
  const opened = await c.open({ sessionId: "s" });
  assert.ok(opened.report.actions.some((a) => a.startsWith("finished an interrupted compaction: dropped 3")));
  await c.close();
});

test("a gap before the last line is damage, not a torn tail: nothing is cut", async (t) => {
  const { root, paths } = await closedSession(t, 5);
  const all = lines(paths.active);
  writeFileSync(paths.active, [...all.slice(0, 3), all[4]].join("\n") + "\n");
  const bytes = readFileSync(paths.active);
  const b = new Sessions({ root });
  const { session, report } = await b.open({ sessionId: "s" });
  assert.match(report.readOnly ?? "", /seq 4 missing, followed by seq 5 at byte \d+/);
  assert.equal(session.lastSeq, 3);
  await b.close();
  assert.ok(readFileSync(paths.active).equals(bytes));
});

test("a torn tail holding a complete record is cut only after a byte-identical backup, and reported", async (t) => {
  const { root, paths } = await closedSession(t, 3);
  const all = lines(paths.active);
  const tail = `${all[1]}\n{"seq":9,"ti`; // an old record repeated, then a partial line
  writeFileSync(paths.active, `${all.join("\n")}\n${tail}`);
  const b = new Sessions({ root });
  const { report } = await b.open({ sessionId: "s" });
  const action = report.actions.find((a) => a.startsWith("truncated torn tail"));
  assert.match(
    action ?? "",
    /after seq 3 \(seq 2 at byte \d+ repeats an earlier seq\); the cut bytes are kept in messages\/active\.jsonl\.cut-\d+/,
  );
  await b.close();
  const backup = readdirSync(paths.messages).find((n) => n.startsWith("active.jsonl.cut-"))!;
  assert.equal(readFileSync(join(paths.messages, backup), "utf8"), tail);
  assert.equal(lines(paths.active).length, 3);
});
