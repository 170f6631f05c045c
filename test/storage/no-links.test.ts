import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Sessions, sessionPaths } from "../../core/storage";
import { tempDir } from "../support/temp";
import { tempRoot, user } from "../support/storage/helpers";

/** A closed session "s" with three events, and a file outside the workspace. */
async function withOutside(t: { after(fn: () => void): void }) {
  const root = tempRoot(t);
  const outside = tempDir(t, "downcity-outside-");
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "s" });
  for (let i = 0; i < 3; i++) user(s, `m${i}`);
  await a.close();
  return { root, outside, paths: sessionPaths(root, "default", "s") };
}

test("links: active.jsonl linked to a file outside the workspace is refused; the outside file is never cut or written", async (t) => {
  const { root, outside, paths } = await withOutside(t);
  const target = join(outside, "victim.txt");
  // Looks like a log with a torn tail: an open that followed the link would cut it.
  writeFileSync(target, readFileSync(paths.active, "utf8") + '{"seq":4,"ti');
  const before = readFileSync(target);
  renameSync(paths.active, `${paths.active}.real`);
  symlinkSync(target, paths.active);
  const b = new Sessions({ root, retryMs: 1 });
  await assert.rejects(
    b.open({ sessionId: "s" }),
    (e: Error) =>
      e.name === "SessionRefusedError" && e.message.includes(paths.active) && /symbolic link/.test(e.message),
  );
  await b.close();
  assert.ok(readFileSync(target).equals(before));
});

test("links: a linked messages/ folder or session folder is refused by open, fork, archive and delete", async (t) => {
  for (const which of ["messages", "dir"] as const) {
    const { root, outside, paths } = await withOutside(t);
    const link = which === "messages" ? paths.messages : paths.dir;
    const moved = join(outside, "moved");
    renameSync(link, moved);
    symlinkSync(moved, link);
    const snapshot = () => readdirSync(moved, { recursive: true }).map(String).sort().join();
    const files = snapshot();
    const b = new Sessions({ root });
    const refused = (e: Error) => e.name === "SessionRefusedError" && e.message.includes(link);
    await assert.rejects(b.open({ sessionId: "s" }), refused, which);
    await assert.rejects(b.fork({ sessionId: "s" }), refused, which);
    await assert.rejects(b.archive({ sessionId: "s" }), refused, which);
    await assert.rejects(b.delete({ sessionId: "s" }), refused, which);
    await b.close();
    assert.equal(snapshot(), files, `${which}: nothing was written through the link`);
  }
});

test("links: a new session under a linked .downcity/ is never written outside the workspace", async (t) => {
  const root = tempRoot(t);
  const outside = tempDir(t, "downcity-outside-");
  mkdirSync(join(outside, "agents"));
  symlinkSync(outside, join(root, ".downcity"));
  const a = new Sessions({ root, batchWindowMs: 1, retryMs: 1, flushAttempts: 2 });
  const s = a.create({ id: "n" });
  user(s, "hello");
  await assert.rejects(a.flush(s), /symbolic link/);
  assert.deepEqual(readdirSync(join(outside, "agents")), []);
  assert.deepEqual(
    await a.list(),
    [{ ...a.persistence.describe(s) }],
    "only the hot session; nothing is listed through the link",
  );
  await a.close().catch(() => {});
  assert.deepEqual(readdirSync(join(outside, "agents")), []);
});
