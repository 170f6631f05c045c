import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import type { DamagedFolder } from "../../core/session";
import { encodeId, Sessions, sessionPaths } from "../../core/storage";
import { assistant, countingFs, tempRoot, user } from "../support/storage/helpers";

test("lists: a 1 MB title in meta.json is never listed; the list rebuilds the title from the log", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "s" });
  user(s, "hi");
  s.append("session/title", { title: "Real title", messageSeqs: [1], source: { kind: "user" } });
  await a.close();
  const p = sessionPaths(root, "default", "s");
  const meta = JSON.parse(readFileSync(p.meta, "utf8"));
  writeFileSync(p.meta, JSON.stringify({ ...meta, title: "x".repeat(1 << 20) }));
  const [item] = await new Sessions({ root }).list();
  assert.equal(item!.title, "Real title");
});

test("lists: a meta.json with the right lastSeq but a wrong count or title is refreshed by open", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "s" });
  for (let i = 0; i < 3; i++) assistant(s, `m${i}`);
  await a.close();
  const p = sessionPaths(root, "default", "s");
  const meta = JSON.parse(readFileSync(p.meta, "utf8"));
  writeFileSync(p.meta, JSON.stringify({ ...meta, messageCount: 999_999, title: "Bogus" }));
  assert.equal((await new Sessions({ root }).list())[0]!.messageCount, 999_999, "lists trust a well-formed meta.json");
  const b = new Sessions({ root });
  const { report } = await b.open({ sessionId: "s" });
  assert.ok(
    report.actions.includes("rebuilt meta.json that disagreed with the log (messageCount)"),
    report.actions.join(),
  );
  await b.close();
  const [item] = await new Sessions({ root }).list();
  assert.equal(item!.messageCount, 3);
  assert.equal(item!.title, undefined);
});

test("lists: a hashed folder whose session-id names another session is left out and reported by folder, never as that session", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const real = a.create({ id: "real" });
  user(real, "mine");
  const long = a.create({ id: "l".repeat(300) });
  user(long, "long");
  await a.close();
  const p = sessionPaths(root, "default", "l".repeat(300));
  rmSync(p.meta);
  writeFileSync(p.idFile, "real");
  const fs = countingFs();
  const damaged: DamagedFolder[] = [];
  const items = await new Sessions({ root, fs }).list({ onDamaged: (d) => damaged.push(d) });
  assert.deepEqual(
    items.map((i) => i.sessionId),
    ["real"],
  );
  assert.deepEqual(damaged, [
    {
      agentId: "default",
      archived: false,
      folder: encodeId("l".repeat(300)),
      reason: "its session-id file names another session",
    },
  ]);
  assert.ok(!fs.reads.some((r) => r.endsWith("active.jsonl")), "no log was parsed for it");
});

test("lists: a session whose log is gone is left out (reported damaged), and opening it is refused", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  for (const id of ["kept", "gone", "gone-no-meta"]) user(a.create({ id }), id);
  await a.close();
  for (const id of ["gone", "gone-no-meta"]) rmSync(sessionPaths(root, "default", id).messages, { recursive: true });
  rmSync(sessionPaths(root, "default", "gone-no-meta").meta);
  const b = new Sessions({ root });
  const seen = (damaged: DamagedFolder[]) => damaged.map((d) => [d.folder, d.reason]).sort();
  const trusting: DamagedFolder[] = [];
  assert.deepEqual(
    (await b.list({ onDamaged: (d) => trusting.push(d) })).map((i) => i.sessionId).sort(),
    ["gone", "kept"],
    "without verifyLogs a meta.json is trusted (no check per session)",
  );
  assert.deepEqual(seen(trusting), [["gone-no-meta", "it holds no event log (messages/active.jsonl or a segment)"]]);
  const verified: DamagedFolder[] = [];
  const items = await b.list({ verifyLogs: true, onDamaged: (d) => verified.push(d) });
  assert.deepEqual(
    items.map((i) => i.sessionId),
    ["kept"],
  );
  assert.deepEqual(seen(verified), [
    ["gone", "it holds no event log (messages/active.jsonl or a segment)"],
    ["gone-no-meta", "it holds no event log (messages/active.jsonl or a segment)"],
  ]);
  await assert.rejects(b.open({ sessionId: "gone" }), /has no stored events \(messages\/active\.jsonl is gone\)/);
  await b.close();
});
