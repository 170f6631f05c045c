// Issue 21: auxiliary files (meta.json, the draft, writer.lock) never block an intact
// log, whatever they are (a link, a directory, a FIFO, unreadable); lists show only real
// sessions and report the rest as damaged, by folder.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { DamagedFolder } from "../../core/session";
import { encodeId, Sessions, sessionPaths, type SessionPaths } from "../../core/storage";
import { nodeFs, type FsSeam } from "../../core/storage/fs/fs-seam";
import { tempRoot, user } from "../support/storage/helpers";

async function closedSession(t: { after(fn: () => void): void }, id = "s") {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id });
  user(s, "hello");
  s.append("session/title", { title: "Mine", messageSeqs: [1], source: { kind: "user" } });
  user(s, "again");
  await a.close();
  return { root, paths: sessionPaths(root, "default", id) };
}

/** Entries of `dir` whose name starts with `prefix`, with what each is (not following links). */
const asides = (dir: string, prefix: string) =>
  readdirSync(dir)
    .filter((n) => n.startsWith(prefix) && n !== prefix)
    .map((n) =>
      lstatSync(join(dir, n)).isSymbolicLink()
        ? "link"
        : lstatSync(join(dir, n)).isDirectory()
          ? "dir"
          : lstatSync(join(dir, n)).isFIFO()
            ? "fifo"
            : "file",
    );

type Aux = "meta" | "draft" | "lock";
const AUX: Aux[] = ["meta", "draft", "lock"];
const auxPath = (p: SessionPaths, which: Aux) => (which === "meta" ? p.meta : which === "draft" ? p.draft : p.lock);

test("auxiliary links: a meta.json, draft or writer.lock that is a link (to a file outside, to a folder, dangling) is moved aside without following it; the session opens writable and continues", async (t) => {
  for (const which of AUX) {
    for (const target of ["outside file", "outside folder", "dangling"] as const) {
      const { root, paths } = await closedSession(t);
      const outside = tempRoot(t);
      const victim = join(outside, "victim.json");
      writeFileSync(victim, '{"keep":"me"}');
      mkdirSync(join(outside, "dir"));
      const path = auxPath(paths, which);
      rmSync(path, { force: true });
      symlinkSync(
        target === "outside file"
          ? victim
          : target === "outside folder"
            ? join(outside, "dir")
            : join(outside, "nothing"),
        path,
      );
      const log = readFileSync(paths.active);
      const name = `${which} → ${target}`;

      const b = new Sessions({ root });
      const listed = await b.list({ verifyLogs: true });
      assert.deepEqual(
        listed.map((i) => [i.sessionId, i.title]),
        [["s", "Mine"]],
        `${name}: listed as itself`,
      );
      const { session, report } = await b.open({ sessionId: "s" });
      assert.equal(report.readOnly, undefined, name);
      assert.equal(report.repaired, true, name);
      assert.ok(
        report.actions.some((a) => /moved aside/.test(a)),
        `${name}: ${report.actions.join(" | ")}`,
      );
      user(session, "after the link");
      await b.close();

      assert.equal(readFileSync(victim, "utf8"), '{"keep":"me"}', `${name}: the target was never written`);
      assert.deepEqual(readdirSync(join(outside, "dir")), [], `${name}: nothing written into the linked folder`);
      const dir = which === "draft" ? paths.messages : paths.dir;
      const base = which === "meta" ? "meta.json" : which === "draft" ? "assistant_message.json" : "writer.lock";
      assert.deepEqual(asides(dir, `${base}.corrupt-`), ["link"], `${name}: the link itself was moved aside`);
      assert.ok(readFileSync(paths.active).subarray(0, log.length).equals(log), `${name}: the log is intact`);
      if (which === "meta")
        assert.equal(JSON.parse(readFileSync(paths.meta, "utf8")).lastSeq, 4, `${name}: meta.json rebuilt as a file`);
      if (which === "lock") assert.ok(!existsSync(paths.lock), `${name}: our own lock was released`);
      const again = await new Sessions({ root }).open({ sessionId: "s" });
      assert.equal(again.report.repaired, false, `${name}: idempotent (${again.report.actions.join(" | ")})`);
      assert.equal(again.session.lastSeq, 4);
    }
  }
});

test("auxiliary FIFOs: a meta.json, draft or writer.lock that is a FIFO never hangs a list or an open; it is moved aside", async (t) => {
  for (const which of AUX) {
    const { root, paths } = await closedSession(t);
    const path = auxPath(paths, which);
    rmSync(path, { force: true });
    execFileSync("mkfifo", [path]);
    const b = new Sessions({ root });
    assert.deepEqual(
      (await b.list({ verifyLogs: true })).map((i) => i.title),
      ["Mine"],
      which,
    );
    const { report } = await b.open({ sessionId: "s" });
    assert.equal(report.readOnly, undefined, which);
    assert.ok(
      report.actions.some((a) => /moved aside/.test(a)),
      `${which}: ${report.actions.join(" | ")}`,
    );
    await b.close();
    const dir = which === "draft" ? paths.messages : paths.dir;
    assert.deepEqual(asides(dir, `${path.slice(dir.length + 1)}.corrupt-`), ["fifo"], which);
  }
});

test("auxiliary files: an unreadable meta.json is moved aside and rebuilt; an unreadable lock is judged by its heartbeat, never an error", async (t) => {
  const { root, paths } = await closedSession(t);
  const eacces = (path: string) =>
    Object.assign(new Error(`EACCES: permission denied, open '${path}'`), { code: "EACCES" });
  const unreadable = new Set([paths.meta]);
  const fs: FsSeam = {
    ...nodeFs,
    readFile: async (path) => (unreadable.has(path) ? Promise.reject(eacces(path)) : nodeFs.readFile(path)),
    readTextSync: (path) => {
      if (unreadable.has(path)) throw eacces(path);
      return nodeFs.readTextSync(path);
    },
  };
  const before = readFileSync(paths.meta);
  const b = new Sessions({ root, fs });
  assert.deepEqual(
    (await b.list()).map((i) => i.title),
    ["Mine"],
    "listed from its log",
  );
  const { report } = await b.open({ sessionId: "s" });
  assert.equal(report.readOnly, undefined);
  assert.ok(
    report.actions.some((a) => /moved aside an unreadable meta\.json \(EACCES/.test(a)),
    report.actions.join(" | "),
  );
  await b.close();
  const [aside] = readdirSync(paths.dir).filter((n) => n.startsWith("meta.json.corrupt-"));
  assert.ok(readFileSync(join(paths.dir, aside!)).equals(before), "the unreadable bytes are kept");
  assert.equal(JSON.parse(readFileSync(paths.meta, "utf8")).sessionId, "s");

  // A lock nobody can read and whose heartbeat is fresh: another process may hold it.
  writeFileSync(paths.lock, "held");
  unreadable.clear();
  unreadable.add(paths.lock);
  const c = new Sessions({ root, fs });
  const locked = await c.open({ sessionId: "s" });
  assert.match(locked.report.readOnly ?? "", /open for writing elsewhere \(another process\)/);
  await c.close();
  const d = new Sessions({ root, fs, lockStaleMs: -1 });
  const stale = await d.open({ sessionId: "s" });
  assert.equal(stale.report.readOnly, undefined, "a stale unreadable lock is taken over");
  await d.close();
});

test("the history stays strict: a link as active.jsonl or a segment is still refused, and the refusal changes no byte", async (t) => {
  const { root, paths } = await closedSession(t);
  const outside = tempRoot(t);
  writeFileSync(join(outside, "log.jsonl"), readFileSync(paths.active));
  rmSync(paths.active);
  symlinkSync(join(outside, "log.jsonl"), paths.active);
  mkdirSync(paths.lock);
  const b = new Sessions({ root });
  await assert.rejects(
    b.open({ sessionId: "s" }),
    (e: Error) => e.name === "SessionRefusedError" && e.message.includes(paths.active),
  );
  await b.close();
  assert.ok(lstatSync(paths.lock).isDirectory(), "the broken lock was not moved: the open failed");
});

test("a folder with no event log is refused before its broken lock is touched (a failed open changes no byte)", async (t) => {
  const { root, paths } = await closedSession(t);
  rmSync(paths.messages, { recursive: true });
  mkdirSync(paths.lock);
  const b = new Sessions({ root });
  await assert.rejects(b.open({ sessionId: "s" }), /has no stored events/);
  await b.close();
  assert.deepEqual(readdirSync(paths.dir).sort(), ["meta.json", "writer.lock"]);
});

test("lists show only real sessions: a stray folder, a hashed folder naming another session, a non-canonical name and a meta.json without a log are left out and reported by folder", async (t) => {
  const root = tempRoot(t);
  const long = "l".repeat(300);
  const a = new Sessions({ root, batchWindowMs: 1 });
  for (const id of ["real", long, "meta-only", "corrupt-hash"]) {
    const s = a.create({ id });
    user(s, id.slice(0, 12));
    s.append("session/title", { title: `title of ${id.slice(0, 12)}`, messageSeqs: [1], source: { kind: "user" } });
  }
  const longer = "m".repeat(300);
  user(a.create({ id: longer }), "longer");
  await a.close();
  const area = join(root, ".downcity", "agents", "default", "sessions");
  mkdirSync(join(area, "ghost", "messages"), { recursive: true });
  mkdirSync(join(area, "Not~Canonical"));
  // Hashed folder whose session-id names "real", with real's meta copied in.
  const hashed = sessionPaths(root, "default", long);
  writeFileSync(hashed.idFile, "real");
  writeFileSync(hashed.meta, readFileSync(sessionPaths(root, "default", "real").meta));
  // Hashed folder whose session-id is gone, and so is its meta.
  const corrupt = sessionPaths(root, "default", longer);
  rmSync(corrupt.idFile);
  rmSync(corrupt.meta);
  rmSync(sessionPaths(root, "default", "meta-only").messages, { recursive: true });

  const damaged: DamagedFolder[] = [];
  const b = new Sessions({ root });
  const items = await b.list({ verifyLogs: true, onDamaged: (d) => damaged.push(d) });
  assert.deepEqual(items.map((i) => [i.sessionId, i.title]).sort(), [
    ["corrupt-hash", "title of corrupt-hash"],
    ["real", "title of real"],
  ]);
  assert.deepEqual(
    damaged.map((d) => [d.folder, d.reason]).sort(),
    [
      ["Not~Canonical", "its name is not the encoding of a session id"],
      [encodeId(long), "its session-id file names another session"],
      [encodeId(longer), "its session-id file is missing or unreadable"],
      ["ghost", "it holds no event log (messages/active.jsonl or a segment)"],
      ["meta-only", "it holds no event log (messages/active.jsonl or a segment)"],
    ].sort(),
  );
  assert.ok(damaged.every((d) => d.agentId === "default" && !d.archived));
  // Without the sink the damaged folders are simply not there.
  assert.equal((await b.list({ verifyLogs: true })).length, 2);
  await b.close();
});

test("lists: a session this process is materialising is never reported damaged", async (t) => {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "new" });
  // Its folder exists, its log not yet (the state between mkdir and the first publication).
  mkdirSync(sessionPaths(root, "default", "new").messages, { recursive: true });
  const damaged: DamagedFolder[] = [];
  const items = await a.list({ verifyLogs: true, onDamaged: (d) => damaged.push(d) });
  assert.deepEqual(
    items.map((i) => [i.sessionId, i.hot]),
    [["new", true]],
  );
  assert.deepEqual(damaged, []);
  user(s, "now it is written");
  await a.close();
});
