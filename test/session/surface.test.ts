import assert from "node:assert/strict";
import { test } from "node:test";
import { Session, SessionEventError } from "../../core/session";
import { assistant, logOnly, user } from "../support/events";

/** Builds a session whose Surface is exactly [12, 20, 31, 45, 60] (seed 003's example). */
function seedExample(): Session {
  const session = new Session({ id: "s" });
  const onSurface = new Set([12, 20, 31, 45, 60]);
  for (let seq = 1; seq <= 79; seq++) {
    if (onSurface.has(seq)) (seq % 2 ? assistant : user)(session, `m${seq}`);
    else logOnly(session);
  }
  assert.deepEqual(session.surface.nodes, [12, 20, 31, 45, 60]);
  return session;
}

test("replace 20..45 at seq 80 turns [12,20,31,45,60] into [12,80,60]", () => {
  const session = seedExample();
  const gen = session.surface.replaceGeneration;
  const event = session.append(
    "user/message",
    { content: [{ type: "text", text: "summary" }], origin: "checkpoint" },
    { surface: { op: "replace", start: 20, end: 45 }, sources: [20, 31, 45] },
  );
  assert.equal(event.seq, 80);
  assert.deepEqual(session.surface.nodes, [12, 80, 60]);
  assert.equal(session.surface.replaceGeneration, gen + 1);
  assert.deepEqual(
    session.deriveMessages().map((m) => m.id),
    ["12", "80", "60"],
  );
});

function assertRejectedWithoutTrace(session: Session, run: () => unknown, pattern: RegExp): void {
  const lastSeq = session.lastSeq;
  const nodes = [...session.surface.nodes];
  const size = session.size;
  assert.throws(run, (e: unknown) => e instanceof SessionEventError && pattern.test(e.message));
  assert.equal(session.lastSeq, lastSeq, "no seq consumed");
  assert.equal(session.size, size, "log unchanged");
  assert.deepEqual(session.surface.nodes, nodes, "Surface unchanged");
  // The next good append takes the very next seq.
  assert.equal(user(session, "after"), lastSeq + 1);
}

test("a replace whose end is not on the Surface is rejected and leaves no trace", () => {
  const session = seedExample();
  assertRejectedWithoutTrace(
    session,
    () =>
      session.append(
        "user/message",
        { content: [] },
        { surface: { op: "replace", start: 20, end: 44 }, sources: [20, 31, 44] },
      ),
    /end 44 is not on the Surface/,
  );
});

test("a replace whose start is a log-only event is rejected", () => {
  const session = seedExample();
  assertRejectedWithoutTrace(
    session,
    () =>
      session.append(
        "user/message",
        { content: [] },
        { surface: { op: "replace", start: 13, end: 45 }, sources: [13, 20, 31, 45] },
      ),
    /start 13 is not on the Surface/,
  );
});

test("a reversed replace range is rejected", () => {
  const session = seedExample();
  assertRejectedWithoutTrace(
    session,
    () =>
      session.append(
        "user/message",
        { content: [] },
        { surface: { op: "replace", start: 45, end: 20 }, sources: [20, 31, 45] },
      ),
    /reversed/,
  );
});

test("a replace whose sources miss a shadowed seq is rejected", () => {
  const session = seedExample();
  assertRejectedWithoutTrace(
    session,
    () =>
      session.append(
        "user/message",
        { content: [] },
        { surface: { op: "replace", start: 20, end: 45 }, sources: [20, 45] },
      ),
    /missing 31/,
  );
});

test("a surface op on turn/start is rejected before it is logged", () => {
  const session = seedExample();
  assertRejectedWithoutTrace(
    session,
    () => session.append("turn/start", {}, { surface: "append" }),
    /turn\/start may not carry a surface op/,
  );
});

test("a surface-eligible event without an explicit op stays off the Surface", () => {
  const session = new Session({ id: "s" });
  session.append("user/message", { content: [{ type: "text", text: "log only" }] });
  assert.deepEqual(session.surface.nodes, []);
  assert.equal(session.deriveMessages().length, 0);
});

test("a replacement node can itself be replaced later", () => {
  const session = seedExample();
  session.append(
    "user/message",
    { content: [] },
    { surface: { op: "replace", start: 20, end: 45 }, sources: [20, 31, 45] },
  );
  session.append(
    "user/message",
    { content: [] },
    { surface: { op: "replace", start: 12, end: 80 }, sources: [12, 80] },
  );
  assert.deepEqual(session.surface.nodes, [81, 60]);
  // The shadowed original cannot be named any more.
  assert.throws(
    () =>
      session.append(
        "user/message",
        { content: [] },
        { surface: { op: "replace", start: 20, end: 20 }, sources: [20] },
      ),
    SessionEventError,
  );
});
