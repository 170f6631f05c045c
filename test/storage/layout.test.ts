import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";
import { build } from "esbuild";
import { decodeId, encodeId, Sessions, sessionPaths } from "../../core/storage";
import { tempRoot, user } from "../support/storage/helpers";

const ODD = [
  "../x",
  "a/b",
  "a\\b",
  "CON",
  "con",
  "nul.txt",
  "Ab",
  "aB",
  "sessión-日本語-🙂",
  "x".repeat(300),
  "..",
  ".",
  "trailing. ",
  "",
  "~7e",
  "LPT1",
];

test("odd session ids encode to safe, distinct, reversible names inside the session root", async (t) => {
  const names = ODD.map(encodeId);
  assert.equal(new Set(names.map((n) => n.toLowerCase())).size, ODD.length, "no collisions, even case-insensitively");
  for (const [i, name] of names.entries()) {
    assert.match(name, /^[a-z0-9_~-]+$/);
    assert.ok(name.length <= 160);
    assert.ok(!/^(con|prn|aux|nul|com\d|lpt\d)$/i.test(name));
    if (ODD[i]!.length < 50) assert.equal(decodeId(name), ODD[i]);
  }
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  for (const id of ODD) {
    const s = a.create({ id });
    user(s, `hello ${id}`);
    await a.flush(s);
    const dir = sessionPaths(root, "default", id).dir;
    assert.ok(!relative(join(root, ".downcity", "agents", "default", "sessions"), dir).startsWith(".."));
  }
  await a.close();
  const b = new Sessions({ root });
  const listed = await b.list();
  assert.deepEqual(listed.map((i) => i.sessionId).sort(), [...ODD].sort());
  for (const id of ODD) {
    const { session } = await b.open({ sessionId: id });
    assert.equal((session.events()[0]!.data as { content: { text: string }[] }).content[0]!.text, `hello ${id}`);
  }
  await b.close();
});

test("lazy materialisation: no file before the first append; first publish creates the layout", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "lazy" });
  assert.equal(existsSync(join(root, ".downcity")), false);
  assert.equal((await a.list()).length, 1, "listed while hot");
  user(s, "hi");
  await a.flush(s);
  const p = sessionPaths(root, "default", "lazy");
  assert.ok(existsSync(p.active) && existsSync(p.meta) && existsSync(p.lock));
  await a.close();
  assert.equal(existsSync(p.lock), false, "close releases the lock");
});

test("segments decode with Debian's zstd -d into JSONL, footer last", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "z" });
  for (let i = 0; i < 300; i++) user(s, `message ${i} `.repeat(200));
  await a.flush(s);
  await a.closePrefix(s, 290, "summary text");
  await a.close();
  const p = sessionPaths(root, "default", "z");
  const file = join(p.segments, readdirSync(p.segments)[0]!);
  const lines = execFileSync("/usr/bin/zstd", ["-d", "-c", file], { maxBuffer: 1 << 28 })
    .toString("utf8")
    .split("\n");
  assert.equal(lines.pop(), "");
  assert.equal(lines.length, 291);
  lines.slice(0, 290).forEach((l, i) => assert.equal(JSON.parse(l).seq, i + 1));
  assert.deepEqual(JSON.parse(lines[290]!).kind, "summary");
  assert.equal(JSON.parse(lines[290]!).throughSeq, 290);
  assert.ok(statSync(file).size < (290 * 2000) / 5, "compressed");
});

test(
  "two processes on one session: exactly one writer; the other follows read-only",
  { timeout: 30_000 },
  async (t) => {
    const root = tempRoot(t);
    const out = join(root, "hold.cjs");
    await build({
      entryPoints: [resolve(__dirname, "fixtures/hold-writer.ts")],
      outfile: out,
      bundle: true,
      platform: "node",
      format: "cjs",
      external: ["@mongodb-js/zstd"],
      logLevel: "error",
    });
    const child = spawn(process.execPath, [out, root], {
      env: { ...process.env, NODE_PATH: resolve(__dirname, "../../node_modules") },
      stdio: ["ignore", "pipe", "inherit"],
    });
    t.after(() => child.kill("SIGKILL"));
    let acked = 0;
    const waitAck = (n: number) =>
      new Promise<void>((res) => {
        const check = () => (acked >= n ? res() : setTimeout(check, 5));
        check();
      });
    child.stdout.on("data", (d: Buffer) => {
      for (const m of d.toString().matchAll(/ACK (\d+)/g)) acked = Math.max(acked, Number(m[1]));
    });
    await waitAck(3);
    const b = new Sessions({ root, followMs: 20 });
    const { session, report } = await b.open({ sessionId: "shared" });
    assert.match(report.readOnly ?? "", /open for writing elsewhere \(pid \d+/);
    assert.throws(() => user(session, "second writer"), /read-only/);
    await assert.rejects(b.archive({ sessionId: "shared" }), /open for writing elsewhere/);
    const target = acked + 5;
    await waitAck(target);
    for (let i = 0; i < 300 && session.lastSeq < target; i++) {
      await b.persistence.follow(session);
      await new Promise((r) => setTimeout(r, 10));
    }
    assert.ok(session.lastSeq >= target, `follower saw ${session.lastSeq} of ${target}`);
    assert.deepEqual(
      session.events().map((e) => e.seq),
      Array.from({ length: session.lastSeq }, (_, i) => i + 1),
    );
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    await b.close();
    // After the writer died, a new opener takes the lock over.
    const c = new Sessions({ root });
    const again = await c.open({ sessionId: "shared" });
    assert.equal(again.report.readOnly, undefined);
    assert.ok(again.report.actions.some((x) => x.startsWith("took over the lock of dead pid")));
    await c.close();
    assert.ok(!readFileSync(sessionPaths(root, "default", "shared").active, "utf8").includes("second writer"));
  },
);
