import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import type { SessionEvent } from "../../core/protocol";
import {
  DEFAULT_AGENT_ID,
  Session,
  type SessionListItem,
  type SessionPersistence,
  type LocalSessionRef,
  type SessionStore,
} from "../../core/session";
import { Sessions } from "../../core/storage";
import { tempRoot, user } from "../support/storage/helpers";

/**
 * A backend that is not the JSONL store: it keeps each session's flushed events in a
 * map, so the test sees exactly what `Sessions` hands a backend and when.
 */
class MapPersistence implements SessionPersistence {
  readonly saved = new Map<string, SessionEvent[]>();
  flushes = 0;
  released: string[] = [];

  attach(store: SessionStore) {
    return store.on("flush", (s) => {
      this.flushes++;
      this.saved.set(s.id, [...s.events()]);
    });
  }
  existsSync(ref: LocalSessionRef) {
    return this.saved.has(ref.sessionId);
  }
  async open(ref: LocalSessionRef) {
    const events = this.saved.get(ref.sessionId);
    if (!events) throw new Error(`no session ${ref.sessionId}`);
    return {
      session: Session.seed({ id: ref.sessionId, agentId: ref.agentId ?? DEFAULT_AGENT_ID }, events),
      report: { repaired: false, actions: [] },
    };
  }
  describe(s: Session): SessionListItem {
    const { messageCount, createdAt, updatedAt } = s.stats;
    return {
      sessionId: s.id,
      agentId: s.agentId,
      title: s.title.title,
      titleSource: s.title.source,
      model: undefined,
      createdAt,
      updatedAt,
      messageCount,
      historyBytes: 0,
      timeZone: "UTC",
      archived: false,
      hot: true,
    };
  }
  async list() {
    return [...this.saved.keys()].map((id) => ({
      ...this.describe(Session.seed({ id }, this.saved.get(id)!)),
      hot: false,
    }));
  }
  async messages(ref: LocalSessionRef) {
    const events = this.saved.get(ref.sessionId) ?? [];
    return { events, firstSeq: events[0]?.seq ?? 0, lastSeq: events.at(-1)?.seq ?? 0, hasOlder: false };
  }
  async writeDraft() {}
  async discardDraft() {}
  async closePrefix() {}
  async fork(): Promise<SessionListItem> {
    throw new Error("not supported by this backend");
  }
  async archive() {}
  async unarchive() {}
  async delete(ref: LocalSessionRef) {
    this.saved.delete(ref.sessionId);
  }
  residentBytes() {
    return 0;
  }
  async release(s: Session) {
    this.released.push(s.id);
  }
  onChange() {
    return () => {};
  }
  async close() {}
}

test("Sessions runs on another SessionPersistence: create, flush, list, reopen and delete go to it, nothing to the JSONL store", async (t) => {
  const root = tempRoot(t);
  const backend = new MapPersistence();
  const a = new Sessions({ root, persistence: backend });
  assert.equal(a.persistence, backend);
  const s = a.create({ id: "s" });
  user(s, "hello");
  await a.flush(s);
  assert.deepEqual(
    backend.saved.get("s")?.map((e) => e.seq),
    [1],
  );
  a.create({ id: "empty" });
  await a.close();
  assert.deepEqual(backend.released.sort(), ["empty", "s"], "close releases every hot session through the backend");

  const b = new Sessions({ root, persistence: backend });
  assert.throws(
    () => b.create({ id: "s" }),
    /already exists on disk/,
    "create asks the backend whether the id is taken",
  );
  const cold = (await b.list()).map((i) => [i.sessionId, i.messageCount, i.hot]).sort();
  assert.deepEqual(cold, [
    ["empty", 0, false],
    ["s", 1, false],
  ]);
  const { session } = await b.open({ sessionId: "s" });
  assert.deepEqual(
    session.events().map((e) => e.type),
    ["user/message"],
  );
  assert.equal((await b.list()).find((i) => i.sessionId === "s")?.hot, true, "the opened session is listed hot");
  await b.delete({ sessionId: "s" });
  assert.equal(backend.existsSync({ sessionId: "s" }), false);
  await b.close();
  assert.deepEqual(readdirSync(root), [], "the default JSONL store wrote nothing");
});
