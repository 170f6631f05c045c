import assert from "node:assert/strict";
import { test } from "node:test";
import { Sessions } from "../../core/storage";
import { nodeFs, type FsSeam } from "../../core/storage/fs/fs-seam";
import { tempRoot, user } from "../support/storage/helpers";

/** The real seam, every call counted by method name. */
function callCounting(): { fs: FsSeam; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const fs = Object.fromEntries(
    Object.entries(nodeFs).map(([name, fn]) => [
      name,
      (...args: unknown[]) => ((calls[name] = (calls[name] ?? 0) + 1), (fn as (...a: unknown[]) => unknown)(...args)),
    ]),
  ) as unknown as FsSeam;
  return { fs, calls };
}

async function listCalls(root: string, verifyLogs: boolean): Promise<Record<string, number>> {
  const { fs, calls } = callCounting();
  const sessions = new Sessions({ root, fs });
  await sessions.list({ verifyLogs });
  await sessions.close();
  return calls;
}

test("a list makes one small read per session (no open, stat or whole-file read) and a fixed number of directory calls", async (t) => {
  const root = tempRoot(t);
  const counts: Record<string, number>[] = [];
  let made = 0;
  for (const total of [10, 30]) {
    const writer = new Sessions({ root, batchWindowMs: 1 });
    for (; made < total; made++) user(writer.create({ id: `s${made}` }), "hello");
    await writer.close();
    counts.push(await listCalls(root, false));
    const verified = await listCalls(root, true);
    assert.equal(verified.existsSync, total, "verifyLogs: one existence check per session");
    assert.equal(verified.readTextSync, total);
  }
  const [small, large] = counts as [Record<string, number>, Record<string, number>];
  assert.equal(small.readTextSync, 10);
  assert.equal(large.readTextSync, 30);
  for (const calls of counts) {
    for (const name of ["open", "readFile", "stat", "existsSync", "rm"])
      assert.equal(calls[name], undefined, `${name}: ${JSON.stringify(calls)}`);
  }
  // Directory calls do not grow with the number of sessions.
  assert.equal(large.lstat, small.lstat);
  assert.equal(large.readdir, small.readdir);
});
