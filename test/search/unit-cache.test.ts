import assert from "node:assert/strict";
import { test } from "node:test";
import { searchWorkspace } from "../../core/runtime";
import { Sessions } from "../../core/storage";
import { UnitCache, unitCache } from "../../core/search/unit-cache";
import type { UnitEntry } from "../../core/search/units";
import { tempDir } from "../support/temp";
import { collect } from "./corpus";

const entry = (seq: number, text: string): UnitEntry => ({
  seq,
  time: 0,
  location: "context",
  fields: [{ kind: "user", part: "text", text }],
});

test("the decoded-unit cache stays within its bound, least recently used out first", () => {
  const cache = new UnitCache(10_000);
  for (let i = 0; i < 100; i++) {
    cache.set(`k${i}`, [entry(1, "x".repeat(500))]);
    if (i >= 1) cache.get("k0"); // k0 is used all along: it stays
    assert.ok(cache.size <= 10_000, `held ${cache.size}`);
  }
  assert.ok(cache.get("k0"), "the recently used entry stayed");
  assert.equal(cache.get("k1"), undefined, "an old one went");
  assert.ok(cache.get("k99"));
  // A unit larger than a quarter of the bound is not kept (it would flush the rest).
  cache.set("huge", [entry(1, "y".repeat(5_000))]);
  assert.equal(cache.get("huge"), undefined);
  assert.ok(cache.get("k99"));
});

test("a cached Active is never served once the log has grown: the next search sees the append", async (t) => {
  const root = tempDir(t);
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  const s = sessions.create({ id: "grows" });
  s.append("user/message", { content: [{ type: "text", text: "first capybara" }] }, { surface: "append" });
  await sessions.flush(s);
  unitCache.clear();
  assert.equal((await collect(searchWorkspace({ root }, { query: "capybara" }))).length, 1);
  const hits0 = unitCache.stats.hits;
  assert.equal((await collect(searchWorkspace({ root }, { query: "capybara" }))).length, 1);
  assert.ok(unitCache.stats.hits > hits0, "the unchanged log came from the cache");
  s.append("user/message", { content: [{ type: "text", text: "second capybara" }] }, { surface: "append" });
  await sessions.flush(s);
  await sessions.close();
  const hits = await collect(searchWorkspace({ root }, { query: "capybara" }));
  assert.deepEqual(
    hits.map((h) => h.snippet),
    ["second capybara", "first capybara"],
  );
});
