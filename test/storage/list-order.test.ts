import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionListItem } from "../../core/session";
import { byUpdated, sortByUpdated } from "../../core/storage/list/list";

const item = (sessionId: string, agentId: string, updatedAt: number): SessionListItem => ({
  sessionId,
  agentId,
  updatedAt,
  title: undefined,
  titleSource: undefined,
  model: undefined,
  createdAt: 0,
  messageCount: 0,
  historyBytes: 0,
  timeZone: "UTC",
  archived: false,
  hot: false,
});

test("sortByUpdated is a total order: newest first, then session id, then agent id, whatever the input order", () => {
  const items = [
    item("b", "code", 5),
    item("a", "review", 5),
    item("a", "code", 5),
    item("c", "code", 9),
    item("a", "code", 1),
  ];
  const expected = ["c/code@9", "a/code@5", "a/review@5", "b/code@5", "a/code@1"];
  const key = (i: SessionListItem) => `${i.sessionId}/${i.agentId}@${i.updatedAt}`;
  // Every rotation and the reverse of the input sort the same way.
  for (let r = 0; r < items.length; r++) {
    const rotated = [...items.slice(r), ...items.slice(0, r)];
    assert.deepEqual(sortByUpdated([...rotated]).map(key), expected);
    assert.deepEqual(sortByUpdated([...rotated].reverse()).map(key), expected);
  }
});

test("byUpdated is consistent: an item equals itself, and swapping the arguments flips the sign", () => {
  const a = item("a", "code", 5);
  assert.equal(byUpdated(a, { ...a }), 0);
  for (const b of [item("a", "review", 5), item("b", "code", 5), item("a", "code", 6)]) {
    assert.ok(byUpdated(a, b) !== 0);
    assert.equal(Math.sign(byUpdated(a, b)), -Math.sign(byUpdated(b, a)));
  }
});
