import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { AgentEvent } from "../../../core/protocol";
import { createNodeTools } from "../../../core/tools/node";
import { activate, deactivate } from "../../../extension/activate";
import { useSeams } from "../../../extension/seams";
import * as fake from "../../support/vscode-fake";
import { startProviderServer, wire } from "../../support/provider-server";
import { tempDir } from "../../support/temp";
import { answer, configure, fakeContext, folder, setFolders } from "../../support/extension/helpers";

test("settings changes reach the open folder's runtime without a reload; an invalid value warns by key and keeps the last valid one", async (t) => {
  const root = tempDir(t);
  let write = false;
  let calls = 0;
  const server = await startProviderServer(({ body }) => {
    const last = body.messages.at(-1);
    // Asked to write (and not yet answered by the tool): call write_file once.
    if (write && last.role === "user")
      return {
        sse: wire.openaiChat({
          toolCalls: [{ id: `w${++calls}`, name: "write_file", arguments: { path: "x.txt", content: "x" } }],
          usage: { input: 900, output: 100 },
        }),
      };
    return { sse: wire.openaiChat({ text: "ok", usage: { input: 900, output: 100 } }) };
  });
  t.after(() => server.close());
  const keys = ["downcity.providers", "downcity.agents", "downcity.compaction.triggerRatio", "downcity.approval.edits"];
  t.after(() => keys.forEach((k) => delete fake.settings[k]));
  fake.settings["downcity.providers"] = [
    { id: "local", protocol: "openai-chat", baseURL: server.baseURL, model: "m1", contextWindow: 10_000 },
  ];
  setFolders([folder(root, 0, "proj")]);
  const context = fakeContext();
  const tools = createNodeTools();
  const host =
    (useSeams({
      env: {},
      openInChat: async () => {},
      tools: () => ({ tools: () => tools, dispose() {} }),
      restAtOnce: true,
    }),
    await activate(context));
  t.after(async () => {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  });
  const { runtime } = host.runtimes.all()[0]!;
  const events: AgentEvent[] = [];
  runtime.onEvent((e) => events.push(e));
  const ref = { agentId: "code", sessionId: runtime.create("code").id };

  // Before: no custom agent, the default trigger, edits ask (and no one to ask: refused).
  assert.deepEqual(
    runtime.agents.map((a) => a.id),
    ["code", "ask"],
  );
  write = true;
  await runtime.prompt(ref, "write x");
  assert.ok(!existsSync(join(root, "x.txt")), "edits ask by default; without an approver they are refused");
  assert.equal(events.filter((e) => e.type === "compaction-started").length, 0);

  configure({
    "downcity.agents": [{ id: "review", name: "Review", instructions: "# Agent: Review\nOnly review." }],
    "downcity.compaction.triggerRatio": 0.05,
    "downcity.approval.edits": "auto",
  });
  // The same runtime (no reload) now has the agent; its sessions get its instructions.
  assert.equal(host.runtimes.all()[0]!.runtime, runtime);
  assert.deepEqual(
    runtime.agents.map((a) => a.id),
    ["code", "ask", "review"],
  );
  const review = runtime.create("review");
  write = false;
  const before = server.requests.length;
  await runtime.prompt({ agentId: "review", sessionId: review.id }, "look");
  assert.match(server.requests[before]!.body.messages[0].content, /# Agent: Review\nOnly review\./);

  // The idle code session's next turn: compaction at 10% of the window, and the edit runs unasked.
  write = true;
  await runtime.prompt(ref, "write x again");
  const compactions = events.filter((e) => e.type === "compaction-started" && e.sessionId === ref.sessionId);
  assert.equal(
    (compactions[0] as { reason?: string } | undefined)?.reason,
    "usage",
    "the new trigger ratio compacts at 10% of the window",
  );
  assert.ok(existsSync(join(root, "x.txt")), "edits: auto applied at the next turn");

  // Invalid values: a warning naming each key; the last valid values stay in effect.
  const warned = answer("showWarningMessage", async () => undefined);
  configure({ "downcity.compaction.triggerRatio": 5, "downcity.agents": [{ id: "Bad Id", name: "" }] });
  assert.equal(warned.length, 1);
  assert.match(String(warned[0]![0]), /2 settings are invalid/);
  const logged = fake.created.output.filter((l) => l.startsWith("settings: "));
  assert.ok(
    logged.some((l) =>
      /^settings: downcity\.compaction\.triggerRatio: .*; the last valid value of downcity\.compaction\.triggerRatio is kept$/.test(
        l,
      ),
    ),
    logged.join("\n"),
  );
  assert.ok(
    logged.some((l) =>
      /^settings: downcity\.agents\[0\]: .*; the last valid value of downcity\.agents is kept$/.test(l),
    ),
    logged.join("\n"),
  );
  assert.equal(host.config.current.compaction.triggerRatio, 0.05);
  assert.deepEqual(
    runtime.agents.map((a) => a.id),
    ["code", "ask", "review"],
  );

  // One invalid key alone: the warning is that key's message.
  configure({ "downcity.agents": undefined, "downcity.compaction.triggerRatio": 5 });
  assert.equal(warned.length, 2);
  assert.match(
    String(warned[1]![0]),
    /^Downcity: downcity\.compaction\.triggerRatio: .*the last valid value of downcity\.compaction\.triggerRatio is kept\.$/,
  );
  assert.deepEqual(
    runtime.agents.map((a) => a.id),
    ["code", "ask"],
    "the valid change (agents removed) still applies",
  );
});
