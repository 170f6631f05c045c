// Issue 20: createWorkspaceRuntime hands out a DeferredRuntime: a folder's runtime (the agent, the providers, the
// protocol's schemas) is made at its first use beyond the store's list, so the Sessions tree lists, redraws from
// another window's meta.json and names its damaged folders without it. Listeners and settings given before it is
// made reach it. Real store on disk; `make` counted.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionChange } from "../../core/runtime";
import { createWorkspaceRuntime } from "../../core/runtime";
import { DeferredRuntime } from "../../core/runtime/deferred-runtime";
import { manySessions } from "../support/many-sessions";
import { tempDir } from "../support/temp";

function counted(root: string) {
  let made = 0;
  const runtime = new DeferredRuntime(
    {
      root,
      providers: () => [],
      model: () => undefined,
      approval: () => ({ policy: "ask" }) as never,
      tools: () => [],
    },
    (options) => (made++, createWorkspaceRuntime(options)),
  );
  return { runtime, made: () => made };
}

test("the list, a meta.json read alone, a damaged folder's path, the agents and closing do not make the runtime", async (t) => {
  const root = tempDir(t);
  const now = Date.now();
  const ids = await manySessions(root, 3, (i) => now - i * 60_000);
  const { runtime, made } = counted(root);
  const listed = await runtime.list({ verifyLogs: true });
  assert.deepEqual(
    listed.map((s) => s.sessionId),
    ids,
    "newest first, as the store lists",
  );
  assert.equal((await runtime.list({ limit: 1 })).length, 1, "a first page");
  assert.equal((await runtime.list({ sessions: [{ agentId: "code", sessionId: ids[2]! }] })).length, 1);
  const at = await runtime.storedItemAt(`${root}/.downcity/agents/code/sessions/${ids[0]}/meta.json`);
  assert.equal(at?.sessionId, ids[0]);
  assert.match(runtime.damagedDir({ agentId: "code", archived: false, folder: "x" } as never), /sessions[\\/]x$/);
  assert.deepEqual(
    runtime.agents.map((a) => a.id),
    ["code", "ask"],
  );
  runtime.cancelAll();
  assert.equal(runtime.isRunning({ sessionId: ids[0]! }), false);
  await runtime.close();
  assert.equal(made(), 0);
});

test("the first other use makes it once; listeners and settings given before reach it, and the list merges its live sessions", async (t) => {
  const root = tempDir(t);
  const now = Date.now();
  await manySessions(root, 2, (i) => now - i * 60_000);
  const { runtime, made } = counted(root);
  const changes: SessionChange[] = [];
  runtime.onChange((change) => changes.push(change));
  runtime.updateOptions({ agents: [{ id: "solo", name: "Solo" } as never] });
  const session = runtime.create();
  t.after(() => runtime.close());
  assert.equal(made(), 1);
  assert.equal(session.agentId, "solo", "the settings given before it was made");
  assert.ok(
    changes.some((c) => c.kind === "created" && c.sessionId === session.id),
    "a listener added before hears the new session",
  );
  const listed = await runtime.list();
  assert.equal(listed.length, 3, "2 stored + 1 live, through the runtime's merged list");
  assert.ok(listed.some((s) => s.sessionId === session.id && s.hot));
  runtime.create();
  assert.equal(made(), 1, "made once");
});
