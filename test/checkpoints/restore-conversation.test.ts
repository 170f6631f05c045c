import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RestoreEndData } from "../../core/protocol";
import { sessionPaths } from "../../core/storage/layout";
import { tempWorkspace } from "../agent/harness";
import { edit, say, scriptedTurns, userMessageSeqs } from "./helpers";

test("restoring files and conversation continues in a fork at that message; the original keeps its later history, the fork shares the blobs, and the next provider request is valid", async (t) => {
  const root = tempWorkspace(t);
  writeFileSync(join(root, "a.txt"), "zero\n");
  const h = await scriptedTurns(t, root, [
    [edit("c1", "a.txt", "zero", "one"), say("one")],
    [edit("c2", "a.txt", "one", "two"), say("two")],
    [say("answered in the fork")],
  ]);
  await h.turn("first");
  await h.turn("second");
  const session = h.agent.session;
  const lastBefore = session.lastSeq;
  const second = userMessageSeqs(session)[1]!;
  const plan = await h.runtime.previewRestore(h.ref, await h.runtime.restorePoint(h.ref, second));
  const outcome = await h.runtime.applyRestore(h.ref, plan, { scope: "files+conversation" });
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "one\n");
  assert.ok(outcome.fork, "a fork was made");
  const end = session.events().at(-1)!.data as RestoreEndData;
  assert.equal(end.forkId, outcome.fork!.sessionId);
  // The original keeps everything, the restore appended after it.
  assert.equal(session.events().filter((e) => e.seq <= lastBefore).length, lastBefore - session.baseSeq);
  assert.equal(userMessageSeqs(session).length, 2);

  // The fork's checkpoints are hard links of the original's.
  const blobsOf = (id: string) => join(sessionPaths(root, "code", id).dir, "checkpoints", "blobs");
  const dirs = readdirSync(blobsOf(outcome.fork!.sessionId));
  assert.deepEqual(dirs.sort(), readdirSync(blobsOf(session.id)).sort());

  const forkRef = { agentId: "code", sessionId: outcome.fork!.sessionId };
  const requestsBefore = h.bodies().length;
  const [result] = await h.runtime.prompt(forkRef, "second, said differently");
  assert.equal(result!.reason, "completed", result!.error);
  const body = h.bodies()[requestsBefore];
  const roles = body.messages.map((m: { role: string }) => m.role);
  assert.deepEqual(
    roles,
    ["system", "user", "assistant", "tool", "assistant", "user"],
    "the first turn, whole, then the new message",
  );
  const text = JSON.stringify(body.messages);
  assert.ok(!text.includes('"second"'), "the later history is not in the fork's context");
  // Every tool call of the request has its result.
  const calls = body.messages.flatMap((m: any) => (m.tool_calls ?? []).map((c: any) => c.id));
  const results = body.messages.filter((m: any) => m.role === "tool").map((m: any) => m.tool_call_id);
  assert.deepEqual(calls, results);
});
