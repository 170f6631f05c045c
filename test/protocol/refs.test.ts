import assert from "node:assert/strict";
import { test } from "node:test";
import { sameRef, SessionRef, sessionKey } from "../../core/protocol/refs";

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
