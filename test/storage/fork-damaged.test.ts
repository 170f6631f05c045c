import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { Sessions, sessionPaths } from "../../core/storage";
import { tempRoot, user } from "../support/storage/helpers";

async function damaged(t: { after(fn: () => void): void }) {
  const root = tempRoot(t);
  const a = new Sessions({ root, batchWindowMs: 1 });
  const s = a.create({ id: "s" });
  for (let i = 0; i < 6; i++) user(s, `m${i}`);
  await a.close();
  const path = sessionPaths(root, "default", "s").active;
  const lines = readFileSync(path, "utf8").split("\n");
  lines[3] = "{garbage";
  writeFileSync(path, lines.join("\n"));
  return root;
}

test("fork of a damaged session is refused, closed or open read-only; validPrefix forks the valid prefix and says so", async (t) => {
  const root = await damaged(t);
  const cold = new Sessions({ root });
  await assert.rejects(
    cold.fork({ sessionId: "s" }),
    (e: Error) =>
      e.name === "SessionRefusedError" &&
      /cannot fork damaged session "s": .*through seq 3, with validPrefix/.test(e.message),
  );
  const item = await cold.fork({ sessionId: "s" }, { newId: "cold-fork", validPrefix: true });
  assert.deepEqual(item.forkedFrom, { sessionId: "s", agentId: "default", atSeq: 3, validPrefix: true });
  const { session } = await cold.open({ sessionId: "s" });
  assert.ok(session.readOnly);
  await assert.rejects(cold.fork({ sessionId: "s" }), /cannot fork damaged session/);
  const hot = await cold.fork({ sessionId: "s" }, { newId: "hot-fork", validPrefix: true });
  assert.equal(hot.forkedFrom?.validPrefix, true);
  const listed = (await cold.list()).find((i) => i.sessionId === "hot-fork")!;
  assert.equal(listed.forkedFrom?.validPrefix, true);
  const f = await cold.open({ sessionId: "hot-fork" });
  // The valid prefix, then the fork's own title event.
  assert.equal(f.session.lastSeq, 4);
  assert.equal(f.report.readOnly, undefined);
  await cold.close();
});
