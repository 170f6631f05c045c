import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RestoreEndData } from "../../core/protocol";
import { tempWorkspace } from "../agent/harness";
import { edit, say, scriptedTurns, userMessageSeqs } from "./helpers";
import { settingsForPolicy } from "../../core/agent/approval";
import { createWorkspaceRuntime } from "../../core/runtime/create";

test("SIGKILL during a restore leaves each file before or after, and the next open logs which", async (t) => {
  const root = tempWorkspace(t);
  const files = ["a.txt", "b.txt", "c.txt", "d.txt"];
  for (const f of files) writeFileSync(join(root, f), `${f} before\n`);
  const h = await scriptedTurns(t, root, [[...files.map((f, i) => edit(`c${i}`, f, "before", "after")), say("done")]]);
  await h.turn("edit all");
  const sessionId = h.agent.session.id;
  const messageSeq = userMessageSeqs(h.agent.session)[0]!;
  await h.runtime.close();

  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(__dirname, "restore-child.ts"), root, sessionId, String(messageSeq), "2"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on("exit", (c, s) => resolve([c, s])),
  );
  assert.equal(signal, "SIGKILL", `the child was killed mid-restore (exit ${code}): ${output}`);

  const contents = files.map((f) => readFileSync(join(root, f), "utf8"));
  assert.deepEqual(
    contents,
    ["a.txt before\n", "b.txt before\n", "c.txt after\n", "d.txt after\n"],
    "two files restored, two not, none torn",
  );

  const runtime = createWorkspaceRuntime({
    root,
    providers: () => [],
    model: () => undefined,
    approval: () => settingsForPolicy("none"),
    tools: () => [],
  });
  t.after(() => runtime.close());
  const { session } = await runtime.open({ agentId: "code", sessionId });
  const end = session
    .events()
    .filter((e) => e.type === "restore/end")
    .at(-1)!.data as RestoreEndData;
  assert.equal(end.outcome, "interrupted");
  assert.deepEqual(end.restored, ["a.txt", "b.txt"]);
  assert.deepEqual(end.notRestored, ["c.txt", "d.txt"]);
  // Durable: a second open finds it settled and adds nothing.
  await runtime.close();
  const again = createWorkspaceRuntime({
    root,
    providers: () => [],
    model: () => undefined,
    approval: () => settingsForPolicy("none"),
    tools: () => [],
  });
  t.after(() => again.close());
  const reopened = (await again.open({ agentId: "code", sessionId })).session;
  assert.equal(reopened.events().filter((e) => e.type === "restore/end").length, 1);
  // Undo puts the two restored files back; restoring again finishes the other two.
  const ref = { agentId: "code", sessionId };
  const plan = await again.previewRestore(ref, await again.restorePoint(ref, messageSeq));
  assert.deepEqual(
    plan.files.map((f) => f.path),
    ["c.txt", "d.txt"],
  );
  assert.deepEqual(plan.unchanged, ["a.txt", "b.txt"]);
});
