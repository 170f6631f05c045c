import assert from "node:assert/strict";
import { test } from "node:test";
import { callKey, sameRef, SessionRef, sessionKey } from "../../core/protocol/refs";

test("sessionKey: agent and session within a folder, the folder too where asked; never ambiguous", () => {
  assert.notEqual(sessionKey({ agentId: "code", sessionId: "s" }), sessionKey({ agentId: "ask", sessionId: "s" }));
  assert.equal(sessionKey({ agentId: "code", sessionId: "s" }), sessionKey({ agentId: "code", sessionId: "s" }));
  // A separator inside an id does not make two refs one key.
  assert.notEqual(
    sessionKey({ agentId: "a\u0000b", sessionId: "c" }),
    sessionKey({ agentId: "a", sessionId: "b\u0000c" }),
  );
  assert.notEqual(sessionKey({ agentId: 'a","b', sessionId: "c" }), sessionKey({ agentId: "a", sessionId: 'b","c' }));
  const ref = { folderKey: "file:///w", agentId: "code", sessionId: "s" };
  assert.notEqual(sessionKey(ref, ref.folderKey), sessionKey(ref), "a folder-qualified key is another kind");
  assert.notEqual(sessionKey(ref, "file:///w"), sessionKey(ref, "file:///v"));
  assert.equal(
    sessionKey(ref),
    sessionKey({ agentId: "code", sessionId: "s" }),
    "without the folder argument the folder is not part of it",
  );
});

test("callKey: the session's key (folder only where asked) and the call id; call_0 of two sessions are two keys", () => {
  const ref = { folderKey: "file:///w", agentId: "code", sessionId: "s" };
  // The encoding the approvals, the card's bound and the proposals used before it had one home.
  assert.equal(callKey(ref, "call_0", ref.folderKey), JSON.stringify([sessionKey(ref, ref.folderKey), "call_0"]));
  assert.equal(callKey(ref, "call_0"), JSON.stringify([sessionKey(ref), "call_0"]));
  assert.notEqual(callKey(ref, "call_0"), callKey({ ...ref, sessionId: "t" }, "call_0"));
  assert.notEqual(callKey(ref, "call_0"), callKey({ ...ref, agentId: "ask" }, "call_0"));
  assert.notEqual(callKey(ref, "call_0", "file:///w"), callKey(ref, "call_0", "file:///v"));
  assert.notEqual(
    callKey(ref, "call_0", ref.folderKey),
    callKey(ref, "call_0"),
    "a folder-qualified key is another kind",
  );
});

test("sameRef compares folder, agent and session", () => {
  const a = { folderKey: "file:///w", agentId: "code", sessionId: "s" };
  assert.equal(sameRef(a, { ...a }), true);
  assert.equal(sameRef(a, { ...a, agentId: "ask" }), false);
  assert.equal(sameRef(a, { ...a, folderKey: "file:///v" }), false);
  assert.equal(sameRef(a, { ...a, sessionId: "t" }), false);
});

test("SessionRef parses the three parts and refuses a missing or empty one", () => {
  assert.deepEqual(SessionRef.parse({ folderKey: "file:///w", agentId: "code", sessionId: "s" }), {
    folderKey: "file:///w",
    agentId: "code",
    sessionId: "s",
  });
  assert.equal(SessionRef.safeParse({ folderKey: "file:///w", sessionId: "s" }).success, false);
  assert.equal(SessionRef.safeParse({ folderKey: "", agentId: "code", sessionId: "s" }).success, false);
});
