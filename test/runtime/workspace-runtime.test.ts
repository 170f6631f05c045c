import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ApprovalRequest } from "../../core/agent";
import { AgentEvent, type EditDetails, type ToolResultData } from "../../core/protocol";
import { RestrictedModeError } from "../../core/runtime";
import { Sessions } from "../../core/storage";
import { wire } from "../support/provider-server";
import { startHarness } from "../agent/harness";
import { toolCallsThen } from "../support/tool-turn";

const resultText = (data: ToolResultData) => (data.content[0] as { text: string }).text;
const results = (h: { agent: { session: { events(): readonly { type: string; data: unknown }[] } } }) =>
  h.agent.session
    .events()
    .filter((e) => e.type === "tool/result")
    .map((e) => e.data as ToolResultData);

test("two sessions run at once; cancelAll stops both; close releases every lock", async (t) => {
  let started = 0;
  let bothStarted: () => void = () => {};
  const both = new Promise<void>((resolve) => (bothStarted = resolve));
  const h = await startHarness(t, () => {
    if (++started === 2) bothStarted();
    return { sse: wire.openaiChat({ text: "a long answer that never ends" }), stallAfter: 2 };
  });
  const a = { sessionId: h.agent.session.id };
  const b = { sessionId: h.runtime.create().id };
  const runs = [h.runtime.prompt(a, "first"), h.runtime.prompt(b, "second")];
  await both;
  assert.ok(h.runtime.isRunning(a) && h.runtime.isRunning(b));
  h.runtime.cancelAll();
  const outcomes = await Promise.all(runs);
  assert.deepEqual(
    outcomes.map((o) => o[0]!.reason),
    ["cancelled", "cancelled"],
  );
  assert.ok(!h.runtime.isRunning(a) && !h.runtime.isRunning(b));
  await h.runtime.close();
  // Another store can now write both sessions: the locks were released.
  const other = new Sessions({ root: h.root });
  for (const ref of [a, b]) assert.equal((await other.open({ agentId: "code", ...ref })).session.readOnly, undefined);
  await other.close();
});

test("Restricted Mode: prompt refuses with a clear message and no request; a run that becomes restricted refuses edits", async (t) => {
  let reason: string | undefined = "the folder is not trusted";
  let n = 0;
  const h = await startHarness(
    t,
    () => {
      reason = "Restricted Mode was turned on";
      return n++ === 0
        ? {
            sse: wire.openaiChat({
              toolCalls: [
                { id: "w1", name: "write_file", arguments: { path: "x.txt", content: "x" } },
                { id: "r1", name: "list_dir", arguments: {} },
              ],
            }),
          }
        : { sse: wire.openaiChat({ text: "ok" }) };
    },
    { runtime: { restricted: () => reason } },
  );
  await assert.rejects(h.runtime.prompt({ sessionId: h.agent.session.id }, "hi"), (err: Error) => {
    assert.ok(err instanceof RestrictedModeError);
    assert.equal(
      err.message,
      "Nothing runs in Restricted Mode: the folder is not trusted. Trust the workspace to run the agent.",
    );
    return true;
  });
  assert.equal(h.server.requests.length, 0);
  reason = undefined;
  await h.agent.followUp("write x");
  await h.agent.run();
  assert.ok(!existsSync(join(h.root, "x.txt")));
  const [write, list] = results(h);
  assert.match(
    resultText(write!),
    /^Nothing ran: this edit \(write_file\) was refused because the workspace is in Restricted Mode: Restricted Mode was turned on\. Do not retry it\.$/,
  );
  assert.equal(list!.isError, undefined, "reads still run");
  const finished = h.events.filter((e) => e.type === "tool-finished");
  assert.deepEqual(
    finished.map((e) => [e.name, e.outcome, e.refusedBy]),
    [
      ["write_file", "refused", "restricted-mode"],
      ["list_dir", "done", undefined],
    ],
  );
});

test("the ask agent has its own partition, read-only tools and its instructions", async (t) => {
  const h = await startHarness(
    t,
    toolCallsThen([{ id: "w1", name: "write_file", arguments: { path: "x.txt", content: "x" } }], {
      text: "I cannot write files.",
    }),
    { agentId: "ask" },
  );
  await h.agent.followUp("write x");
  await h.agent.run();
  const body = h.bodies()[0];
  assert.deepEqual(body.tools.map((tool: { function: { name: string } }) => tool.function.name).sort(), [
    "glob",
    "grep",
    "list_dir",
    "read_file",
  ]);
  assert.match(body.messages[0].content, /# Agent: Ask/);
  assert.ok(!existsSync(join(h.root, "x.txt")));
  assert.equal(results(h)[0]!.isError, true);
  await h.runtime.close();
  assert.ok(existsSync(join(h.root, ".downcity/agents/ask/sessions/session-test/messages/active.jsonl")));
  assert.ok(!existsSync(join(h.root, ".downcity/agents/code")));
});

test("allow-listed commands run unasked, chained ones ask; 'allow for this session' is remembered per command line", async (t) => {
  const turns = [
    [{ id: "c1", name: "run_command", arguments: { command: "echo listed" } }],
    [{ id: "c2", name: "run_command", arguments: { command: "echo listed; touch chained" } }],
    [{ id: "c3", name: "run_command", arguments: { command: "touch once" } }],
    [
      { id: "c4", name: "run_command", arguments: { command: "touch  once" } },
      { id: "c5", name: "run_command", arguments: { command: "touch twice" } },
    ],
  ];
  let n = 0;
  const h = await startHarness(
    t,
    (req) => {
      const last = req.body.messages.at(-1);
      return last.role === "tool"
        ? { sse: wire.openaiChat({ text: "ok" }) }
        : { sse: wire.openaiChat({ toolCalls: turns[n++]! }) };
    },
    {
      runtime: {
        approval: () => ({ reads: "auto", edits: "ask", commands: "ask", allowedCommands: ["echo listed"] }),
        approve: async (request: ApprovalRequest) => {
          asked.push(String(request.arguments.command));
          if (request.arguments.command === "touch once") return { approved: true, scope: "session" };
          return { approved: false, reason: "not that" };
        },
      },
    },
  );
  const asked: string[] = [];
  for (let i = 0; i < turns.length; i++) {
    h.agent.followUp(`turn ${i}`);
    await h.agent.run();
  }
  assert.deepEqual(asked, ["echo listed; touch chained", "touch once", "touch twice"]);
  assert.ok(existsSync(join(h.root, "once")));
  assert.ok(!existsSync(join(h.root, "chained")) && !existsSync(join(h.root, "twice")));
  const approvals = h.agent.session
    .events()
    .filter((e) => e.type === "tool/approval")
    .map((e) => e.data);
  assert.deepEqual(approvals, [
    { toolCallId: "c1", decision: "approved", by: "policy" },
    { toolCallId: "c2", decision: "denied", by: "user", reason: "not that" },
    { toolCallId: "c3", decision: "approved", by: "user", scope: "session" },
    { toolCallId: "c4", decision: "approved", by: "user", scope: "session" },
    { toolCallId: "c5", decision: "denied", by: "user", reason: "not that" },
  ]);
});

test("the typed event stream: a previewed, approved edit and a command's live output, every event valid", async (t) => {
  const h = await startHarness(
    t,
    toolCallsThen(
      [
        {
          id: "e1",
          name: "edit_file",
          arguments: { path: "a.txt", edits: [{ oldText: "two", newText: "2\nmore" }] },
        },
        { id: "c1", name: "run_command", arguments: { command: "printf 'out-1\\n'; printf 'err-1\\n' >&2" } },
      ],
      { text: "Edited.", usage: { input: 100, output: 5 } },
    ),
    { agent: { policy: "reads", approve: async () => ({ approved: true }), contextWindow: 1000 } },
  );
  writeFileSync(join(h.root, "a.txt"), "one\r\ntwo\r\nthree\r\n");
  const previews: unknown[] = [];
  h.runtime.onEvent((e) => e.type === "approval-requested" && previews.push(e.preview));
  h.agent.followUp("edit it");
  await h.agent.run();
  for (const event of h.events) assert.equal(AgentEvent.safeParse(event).success, true, JSON.stringify(event));
  assert.ok(h.events.every((e) => e.sessionId === "session-test" && e.agentId === "code"));
  assert.equal(readFileSync(join(h.root, "a.txt"), "utf8"), "one\r\n2\r\nmore\r\nthree\r\n", "CRLF kept");
  const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,4 @@\n one\n-two\n+2\n+more\n three\n";
  assert.deepEqual(previews[0], { kind: "edit", path: "a.txt", diff, added: 2, removed: 1 });
  assert.deepEqual(previews[1], { kind: "command", command: "printf 'out-1\\n'; printf 'err-1\\n' >&2", cwd: "." });
  const types = h.events
    .filter(
      (e) => e.type !== "session-event" && e.type !== "draft" && e.type !== "draft-cleared" && e.type !== "tool-output",
    )
    .map((e) => e.type);
  assert.deepEqual(types, [
    "turn-started",
    "tool-started",
    "approval-requested",
    "approval-resolved",
    "tool-started",
    "approval-requested",
    "approval-resolved",
    "tool-finished",
    "tool-finished",
    "usage",
    "turn-ended",
  ]);
  const finished = h.events.filter(
    (e): e is Extract<AgentEvent, { type: "tool-finished" }> => e.type === "tool-finished",
  );
  assert.deepEqual(finished[0]!.details as EditDetails, { kind: "edit", path: "a.txt", diff, added: 2, removed: 1 });
  assert.deepEqual(finished[1]!.details, {
    kind: "command",
    command: "printf 'out-1\\n'; printf 'err-1\\n' >&2",
    cwd: ".",
    exitCode: 0,
    signal: null,
  });
  const live = h.events
    .filter((e) => e.type === "tool-output" && e.toolCallId === "c1")
    .map((e) => (e as { update: { text: string; stream?: string } }).update);
  assert.deepEqual(
    live
      .filter((u) => u.stream === "stdout")
      .map((u) => u.text)
      .join(""),
    "out-1\n",
  );
  assert.deepEqual(
    live
      .filter((u) => u.stream === "stderr")
      .map((u) => u.text)
      .join(""),
    "err-1\n",
  );
  const usage = h.events.find((e) => e.type === "usage") as Extract<AgentEvent, { type: "usage" }>;
  assert.equal(usage.contextWindow, 1000);
  assert.equal(usage.ratio, 0.105);
  const logged = h.events
    .filter((e) => e.type === "session-event")
    .map((e) => (e as { event: { seq: number } }).event.seq);
  assert.deepEqual(
    logged,
    h.agent.session.events().map((e) => e.seq),
    "every log event is forwarded once, in order",
  );
  // Each final answer names the request it came from (DESIGN §3 sources).
  const log = h.agent.session.events();
  for (const message of log.filter((e) => e.type === "assistant/message")) {
    const header = log.filter((e) => e.type === "request/header" && e.seq < message.seq).at(-1)!;
    assert.deepEqual(message.sources, [header.seq]);
    assert.equal(typeof (message.data as { draftId?: string }).draftId, "string");
  }
});

test("an edit whose text is not in the file fails before anyone is asked", async (t) => {
  let asked = 0;
  const h = await startHarness(
    t,
    toolCallsThen(
      [
        {
          id: "e1",
          name: "edit_file",
          arguments: { path: "a.txt", edits: [{ oldText: "absent", newText: "x" }] },
        },
      ],
      { text: "ok" },
    ),
    { agent: { policy: "reads", approve: async () => (asked++, { approved: true }) } },
  );
  writeFileSync(join(h.root, "a.txt"), "one\n");
  h.agent.followUp("edit it");
  await h.agent.run();
  assert.equal(asked, 0);
  assert.match(resultText(results(h)[0]!), /^edit: oldText not found in a\.txt\. Nothing was changed\./);
  const finished = h.events.find((e) => e.type === "tool-finished") as Extract<AgentEvent, { type: "tool-finished" }>;
  assert.equal(finished.outcome, "failed");
});

test(
  "Compact Now can be cancelled: Cancel Run and the caller's signal abort its summary request; a prompt sent meanwhile waits for it, then runs",
  { timeout: 30_000 },
  async (t) => {
    let summaryArrived: () => void = () => {};
    let arrivals = Promise.resolve();
    const summaries: string[] = [];
    const prompts: string[] = [];
    const h = await startHarness(
      t,
      ({ body }) => {
        const text = JSON.stringify(body);
        if (text.includes("Write the updated cumulative summary")) {
          summaries.push(text);
          summaryArrived();
          return { sse: wire.openaiChat({ text: "never sent" }), stallAfter: 0 };
        }
        prompts.push(text);
        return {
          sse: wire.openaiChat({ text: `An answer long enough to be worth closing. ${"detail ".repeat(300)}` }),
        };
      },
      { agent: { contextWindow: 2_000 } },
    );
    const ref = { agentId: "code", sessionId: h.agent.session.id };
    for (const q of ["one", "two", "three"]) await h.runtime.prompt(ref, q);
    const events = () => h.agent.session.events().map((e) => e.type);
    const before = h.agent.session.lastSeq;

    // 1. Cancel Run stops the compaction; the prompt sent while it ran starts after it.
    arrivals = new Promise<void>((r) => (summaryArrived = r));
    const compacting = h.runtime.compactNow(ref);
    await arrivals;
    await assert.rejects(h.runtime.compactNow(ref), /already being compacted/);
    const waiting = h.runtime.prompt(ref, "four");
    assert.equal(prompts.length, 3, "the prompt started while the compaction ran");
    h.runtime.cancel(ref);
    await assert.rejects(compacting, /abort/i);
    const [four] = await waiting;
    assert.equal(four!.reason, "completed");
    assert.equal(prompts.length, 4);

    // 2. The caller's signal (the progress notification's Cancel) stops it as well.
    arrivals = new Promise<void>((r) => (summaryArrived = r));
    const controller = new AbortController();
    const second = h.runtime.compactNow(ref, { signal: controller.signal });
    await arrivals;
    controller.abort(new Error("cancelled from the notification"));
    await assert.rejects(second, /abort|cancelled/i);

    // Nothing was closed or lost: the log grew by the two failed compactions and turn four.
    assert.equal(summaries.length, 2);
    assert.equal(h.agent.session.baseSeq, 0);
    assert.equal(events().filter((e) => e === "compaction/error").length, 2);
    assert.ok(h.agent.session.lastSeq > before);
    assert.equal(events().filter((e) => e === "user/message").length, 4);
  },
);
