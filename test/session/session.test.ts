import assert from "node:assert/strict";
import { test } from "node:test";
import { ReadOnlySessionError, Session, SessionEventError } from "../../core/session";
import { assistant, logOnly, user } from "../support/events";

test("append assigns contiguous seqs from 1 and freezes the event deeply", () => {
  const session = new Session({ id: "s" });
  const data = { content: [{ type: "text" as const, text: "hi" }] };
  const a = session.append("user/message", data, { surface: "append" });
  const b = session.append("turn/start", {});
  assert.deepEqual([a.seq, b.seq], [1, 2]);
  assert.ok(Object.isFrozen(a) && Object.isFrozen(a.data) && Object.isFrozen((a.data as typeof data).content[0]));
  // The caller's object is cloned, not frozen under them.
  assert.ok(!Object.isFrozen(data));
  data.content[0]!.text = "changed";
  assert.equal((session.event(1)!.data as typeof data).content[0]!.text, "hi");
});

test("invalid data of a known type is rejected with the field named", () => {
  const session = new Session({ id: "s" });
  assert.throws(
    () => session.append("tool/result", { toolCallId: "", toolName: "x", content: [] } as never),
    (e: unknown) => e instanceof SessionEventError && /toolCallId/.test(e.message),
  );
  assert.equal(session.lastSeq, 0);
});

test("unknown event types and unknown fields round-trip untouched", () => {
  const session = new Session({ id: "s" });
  const future = { nested: { list: [1, "two", null], flag: true } };
  session.append("plugin/future-thing", future);
  session.append("user/message", { content: [], addedLater: { x: 1 } } as never, { surface: "append" });
  const json = JSON.parse(JSON.stringify(session.events()));
  assert.deepEqual(json[0].data, future);
  assert.deepEqual(json[1].data.addedLater, { x: 1 });
  const cold = Session.seed({ id: "s" }, json);
  assert.deepEqual(JSON.parse(JSON.stringify(cold.events())), json);
});

test("sources must refer to earlier events", () => {
  const session = new Session({ id: "s" });
  assert.throws(
    () => session.append("user/message", { content: [] }, { surface: "append", sources: [1] }),
    /earlier events/,
  );
});

/** A mixed history with log-only events, tool results, a replace and titles. */
function buildHistory(session: Session): void {
  user(session, "please fix the bug");
  session.append("turn/start", {});
  session.append(
    "assistant/message",
    {
      content: [
        { type: "reasoning", text: "look first" },
        { type: "tool-call", id: "c1", name: "read_file", arguments: { path: "a.ts" } },
      ],
    },
    { surface: "append" },
  );
  session.append("tool/call", { toolCallId: "c1", name: "read_file", arguments: { path: "a.ts" } });
  const result = session.append(
    "tool/result",
    { toolCallId: "c1", toolName: "read_file", content: [{ type: "text", text: "x".repeat(100) }] },
    { surface: "append" },
  ).seq;
  session.append(
    "tool/result",
    { toolCallId: "c1", toolName: "read_file", content: [{ type: "text", text: "[pruned]" }] },
    { surface: { op: "replace", start: result, end: result }, sources: [result] },
  );
  session.append("session/title", { title: "Fix the bug", messageSeqs: [1], source: { kind: "fallback" } });
  assistant(session, "done");
  session.append("turn/end", { reason: "completed" });
}

test("seeding from stored events gives the same Surface, messages and title as the hot path", () => {
  const hot = new Session({ id: "s", createdAt: 1 });
  buildHistory(hot);
  const stored = JSON.parse(JSON.stringify(hot.events()));
  const cold = Session.seed({ id: "s", createdAt: 1 }, stored);
  assert.deepEqual(cold.surface.nodes, hot.surface.nodes);
  assert.deepEqual(cold.deriveMessages(), hot.deriveMessages());
  assert.deepEqual(cold.title, hot.title);
  assert.deepEqual(cold.stats, hot.stats);
});

test("seeding rejects a seq gap and a replace that the hot path would reject", () => {
  const hot = new Session({ id: "s" });
  buildHistory(hot);
  const stored = JSON.parse(JSON.stringify(hot.events()));
  const gap = stored.filter((e: { seq: number }) => e.seq !== 4);
  assert.throws(() => Session.seed({ id: "s" }, gap), /seq 5 does not follow 3/);
  const badReplace = structuredClone(stored);
  badReplace[5].sources = [];
  assert.throws(() => Session.seed({ id: "s" }, badReplace), /sources must cover/);
});

test("an append projects only the new node; a replace rebuilds once", () => {
  const session = new Session({ id: "s" });
  for (let i = 0; i < 100; i++) user(session, `m${i}`);
  session.deriveMessages();
  assert.equal(session.projections, 100);
  user(session, "one more");
  logOnly(session);
  assert.equal(session.deriveMessages().length, 101);
  assert.equal(session.projections, 101, "exactly one new projection");
  session.deriveMessages();
  assert.equal(session.projections, 101, "a repeated derive projects nothing");
  session.append("user/message", { content: [] }, { surface: { op: "replace", start: 1, end: 2 }, sources: [1, 2] });
  assert.equal(session.deriveMessages().length, 100);
  assert.equal(session.projections, 201, "replace rebuilds the 100 remaining nodes");
});

test("tool results project to user-role tool-result blocks", () => {
  const session = new Session({ id: "s" });
  buildHistory(session);
  const messages = session.deriveMessages();
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant", "user", "assistant"],
  );
  assert.deepEqual(messages[2]!.content, [
    { type: "tool-result", toolCallId: "c1", toolName: "read_file", content: [{ type: "text", text: "[pruned]" }] },
  ]);
});

test("title: latest wins; a user rename stops automatic titles", () => {
  const session = new Session({ id: "s" });
  const title = (t: string, kind: "fallback" | "llm" | "user") =>
    session.append("session/title", { title: t, messageSeqs: [], source: { kind } });
  title("first", "fallback");
  title("better", "llm");
  assert.deepEqual([session.title.title, session.title.source, session.title.pinned], ["better", "llm", false]);
  title("mine", "user");
  title("automatic again", "llm");
  assert.deepEqual([session.title.title, session.title.source, session.title.pinned], ["mine", "user", true]);
  title("renamed again", "user");
  assert.equal(session.title.title, "renamed again");
  const cold = Session.seed({ id: "s" }, JSON.parse(JSON.stringify(session.events())));
  assert.deepEqual(cold.title, session.title);
});

test("closing a prefix keeps hot and cold Surfaces identical and drops a fold of a closed node", () => {
  const hot = new Session({ id: "s" });
  for (let i = 0; i < 10; i++) user(hot, `m${i}`); // seqs 1..10
  // A fold of node 3 appended later (seq 11), then the prefix through 5 is closed.
  hot.append(
    "user/message",
    { content: [{ type: "text", text: "folded 3" }] },
    { surface: { op: "replace", start: 3, end: 3 }, sources: [3] },
  );
  hot.append("user/message", { content: [] }, { surface: { op: "replace", start: 4, end: 7 }, sources: [4, 5, 6, 7] }); // seq 12 spans the cut
  const stored = JSON.parse(JSON.stringify(hot.events(6)));
  hot.closePrefix({ throughSeq: 5, text: "earlier work" });
  assert.equal(hot.size, 7);
  assert.equal(hot.baseSeq, 5);
  assert.deepEqual(hot.surface.nodes, [12, 8, 9, 10]);
  const cold = Session.seed(
    { id: "s", summary: { throughSeq: 5, text: "earlier work", messageCount: hot.summary!.messageCount } },
    stored,
  );
  assert.deepEqual(cold.surface.nodes, hot.surface.nodes);
  assert.deepEqual(cold.deriveMessages(), hot.deriveMessages());
  assert.match((hot.deriveMessages()[0]!.content[0] as { text: string }).text, /earlier work/);
  assert.equal(cold.stats.messageCount, hot.stats.messageCount);
  // Appends continue after the base.
  assert.equal(user(cold, "next"), 13);
});

test("a read-only session refuses appends but follows external events", () => {
  const session = new Session({ id: "s", readOnly: "another window writes this session" });
  assert.throws(() => user(session, "x"), ReadOnlySessionError);
  const seen: number[] = [];
  session.on("external", (e) => seen.push(e.seq));
  session.applyExternal({ seq: 1, time: 1, type: "user/message", data: { content: [] }, surface: "append" });
  assert.deepEqual(seen, [1]);
  assert.deepEqual(session.surface.nodes, [1]);
  assert.throws(() => session.applyExternal({ seq: 3, time: 1, type: "turn/start", data: {} }), /does not follow/);
});
