import assert from "node:assert/strict";
import { test } from "node:test";
import { Session, SessionStore } from "../../core/session";
import { user } from "../support/events";

test("ids: a host-given id is used as is; without one the store picks session-1, session-2, …", () => {
  const store = new SessionStore();
  const given = store.create({ id: "session-550e8400-e29b-41d4-a716-446655440000" });
  assert.equal(given.id, "session-550e8400-e29b-41d4-a716-446655440000");
  store.create({ id: "session-2" });
  assert.deepEqual([store.create().id, store.create().id], ["session-1", "session-3"]);
  assert.throws(() => store.create({ id: "session-1" }), /already exists/);
});

test("agents partition the store: two agents may use the same session id", () => {
  const store = new SessionStore();
  const a = store.create({ id: "x", agentId: "coder" });
  const b = store.create({ id: "x", agentId: "reviewer" });
  assert.notEqual(a, b);
  assert.equal(store.get("x", "coder"), a);
  assert.equal(store.list({ agentId: "reviewer" }).length, 1);
  assert.equal(store.list().length, 2);
});

test("created / event / flush / disposed notifications reach subscribers in order", async () => {
  const store = new SessionStore();
  const log: string[] = [];
  store.on("created", (s) => log.push(`created ${s.id}`));
  store.on("event", (e, s) => log.push(`event ${s.id}#${e.seq}`));
  store.on("flush", async (s) => {
    await new Promise((r) => setTimeout(r, 5));
    log.push(`flushed ${s.id}`);
  });
  store.on("disposed", (s) => log.push(`disposed ${s.id}`));
  const session = store.create({ id: "a" });
  user(session, "hello");
  await store.flush(session);
  log.push("flush resolved");
  await store.dispose(session);
  user(session, "after dispose is not forwarded");
  assert.deepEqual(log, ["created a", "event a#1", "flushed a", "flush resolved", "flushed a", "disposed a"]);
  assert.equal(store.get("a"), undefined);
});

test("a failing flush listener rejects flush()", async () => {
  const store = new SessionStore();
  store.on("flush", async () => {
    throw new Error("disk full");
  });
  const session = store.create();
  await assert.rejects(store.flush(session), /disk full/);
});

test("adopting a seeded session joins the hot map and forwards its events", () => {
  const store = new SessionStore();
  const events: number[] = [];
  store.on("event", (e) => events.push(e.seq));
  const seeded = Session.seed({ id: "old" }, [
    { seq: 1, time: 1, type: "user/message", data: { content: [] }, surface: "append" },
  ]);
  store.adopt(seeded);
  assert.equal(store.get("old"), seeded);
  user(seeded, "more");
  assert.deepEqual(events, [2]);
  assert.throws(() => store.adopt(seeded), /already open/);
});
