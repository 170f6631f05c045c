import assert from "node:assert/strict";
import { existsSync, mkdirSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Sessions } from "../../core/storage";
import { tempRoot } from "../support/storage/helpers";

test("a list sweeps what crashed deletes and forks left behind, and leaves a fork in flight alone", async (t) => {
  const root = tempRoot(t);
  const sessions = new Sessions({ root });
  t.after(() => sessions.close());
  const session = sessions.create({ id: "kept" });
  session.append("user/message", { content: [{ type: "text", text: "hi" }] }, { surface: "append" });
  await sessions.flush(session);

  const area = join(root, ".downcity/agents/default/sessions");
  const deleted = join(area, ".deleted-1234");
  const staleFork = join(area, ".fork-old");
  const freshFork = join(area, ".fork-new");
  for (const dir of [deleted, staleFork, freshFork]) mkdirSync(join(dir, "messages"), { recursive: true });
  const hourAgo = new Date(Date.now() - 3_600_000);
  utimesSync(staleFork, hourAgo, hourAgo);

  const items = await sessions.list();
  assert.deepEqual(
    items.map((i) => i.sessionId),
    ["kept"],
  );
  assert.equal(existsSync(deleted), false);
  assert.equal(existsSync(staleFork), false);
  assert.equal(existsSync(freshFork), true, "a fork younger than ten minutes may still be running");
});
