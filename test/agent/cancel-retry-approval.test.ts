import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { AssistantMessageData, ToolResultData } from "../../core/protocol";
import { wire } from "../support/provider-server";
import { startHarness } from "./harness";
import { toolCallsThen } from "../support/tool-turn";

test("cancel mid-stream keeps the partial answer as interrupted and drops half-built tool calls", async (t) => {
  const frames = wire.openaiChat({
    text: "Here is the first half of a long answer",
    toolCalls: [{ id: "call_1", name: "run_command", arguments: { command: "echo never" } }],
    chunkSize: 4,
  });
  // Stall after the first argument delta of the tool call: the call is half-built.
  const firstArgs = frames.findIndex((f) => f.includes('"arguments":"{'));
  assert.ok(firstArgs > 0);
  const h = await startHarness(t, () => ({ sse: frames, stallAfter: firstArgs + 1 }));
  // The draft event that first shows the half-built call cancels the run.
  h.runtime.onEvent(
    (event) => event.type === "draft" && event.blocks.some((b) => b.type === "tool-call") && h.agent.cancel(),
  );
  h.agent.followUp("write a long answer");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "cancelled");
  const session = h.agent.session;
  const answer = session.events().find((e) => e.type === "assistant/message")!;
  const data = answer.data as AssistantMessageData;
  assert.equal(data.interrupted, true);
  assert.deepEqual(data.content, [{ type: "text", text: "Here is the first half of a long answer" }]);
  assert.ok(session.surface.nodes.includes(answer.seq), "the partial answer is on the Surface");
  assert.equal(session.events().filter((e) => e.type === "tool/call").length, 0, "the half-built call never ran");
  assert.equal((session.events().at(-1)!.data as { reason: string }).reason, "cancelled");
  await h.server.requests[0]!.closed;
  assert.ok(h.server.requests[0]!.clientAborted, "the HTTP stream was cancelled");
  assert.ok(
    !existsSync(join(h.root, ".downcity/agents/code/sessions/session-test/messages/assistant_message.json")),
    "draft deleted",
  );
});

test("429 with retry-after and a 500 are retried; the failed attempts stay in the log, out of the Surface", async (t) => {
  let n = 0;
  const h = await startHarness(t, () => {
    n++;
    if (n === 1) return wire.error("openai-chat", 429, "Rate limit reached", { "retry-after": "0" });
    if (n === 2) return wire.error("openai-chat", 500, "The server had an error");
    return { sse: wire.openaiChat({ text: "finally" }) };
  });
  h.agent.followUp("hi");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "completed");
  const session = h.agent.session;
  const errors = session
    .events()
    .filter((e) => e.type === "request/error")
    .map((e) => e.data as { kind: string; retryInMs: number; attempt: number });
  assert.deepEqual(
    errors.map((e) => [e.kind, e.attempt]),
    [
      ["rate-limit", 1],
      ["transient", 2],
    ],
  );
  assert.equal(errors[0]!.retryInMs, 0, "retry-after honoured");
  assert.deepEqual(
    session.surface.nodes.map((s) => session.event(s)!.type),
    ["user/message", "assistant/message"],
  );
  assert.equal(session.events().filter((e) => e.type === "request/header").length, 3);
});

test("an authentication error is not retried and fails the turn with the provider's message", async (t) => {
  const h = await startHarness(t, () => wire.error("openai-chat", 401, "Incorrect API key provided"));
  h.agent.followUp("hi");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "error");
  assert.match(outcome!.error!.message, /Incorrect API key/);
  assert.equal(h.server.requests.length, 1);
  const end = h.agent.session.events().at(-1)!;
  assert.equal(end.type, "turn/end");
  assert.match((end.data as { error: string }).error, /Incorrect API key/);
});

test("a command without approval is refused with a clear result and never runs", async (t) => {
  const h = await startHarness(
    t,
    toolCallsThen(
      [
        { id: "call_rm", name: "run_command", arguments: { command: "touch pwned" } },
        { id: "call_ls", name: "list_dir", arguments: { path: "." } },
      ],
      { text: "ok, I will not." },
    ),
    { agent: { policy: "reads" } },
  );
  h.agent.followUp("delete things");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "completed");
  assert.ok(!existsSync(join(h.root, "pwned")), "the command did not run");
  const session = h.agent.session;
  const approvals = session
    .events()
    .filter((e) => e.type === "tool/approval")
    .map((e) => e.data as { decision: string; by: string });
  assert.deepEqual(
    approvals.map((a) => a.decision),
    ["denied", "approved"],
  );
  const results = session
    .events()
    .filter((e) => e.type === "tool/result")
    .map((e) => e.data as ToolResultData);
  assert.equal(results[0]!.isError, true);
  assert.equal(
    (results[0]!.content[0] as { text: string }).text,
    "Nothing ran: this command (run_command) was refused by the approval policy: command tools need approval and no one can be asked. Do not retry it unchanged.",
  );
  assert.equal(results[1]!.isError, undefined, "the read ran");
});

test("a host approve() is asked for what the policy does not allow, and its answer is logged", async (t) => {
  const asked: string[] = [];
  const h = await startHarness(
    t,
    toolCallsThen([
      { id: "c1", name: "write_file", arguments: { path: "a.txt", content: "A" } },
      { id: "c2", name: "write_file", arguments: { path: "b.txt", content: "B" } },
    ]),
    {
      agent: {
        policy: "reads",
        approve: async (request) => {
          asked.push(request.summary);
          return request.arguments.path === "a.txt" ? { approved: true } : { approved: false, reason: "not b" };
        },
      },
    },
  );
  h.agent.followUp("write two files");
  await h.agent.run();
  assert.equal(asked.length, 2);
  assert.ok(existsSync(join(h.root, "a.txt")));
  assert.ok(!existsSync(join(h.root, "b.txt")));
  const approvals = h.agent.session
    .events()
    .filter((e) => e.type === "tool/approval")
    .map((e) => e.data as { decision: string; by: string; reason?: string });
  assert.deepEqual(approvals, [
    { toolCallId: "c1", decision: "approved", by: "user", scope: "once" },
    { toolCallId: "c2", decision: "denied", by: "user", reason: "not b" },
  ]);
});

test("a steer is taken at the next step of the running turn; a follow-up waits for its own turn", async (t) => {
  let n = 0;
  const h = await startHarness(t, () => {
    if (n++ > 0) return { sse: wire.openaiChat({ text: "ok" }) };
    // While the first step is streaming, the user steers and queues a follow-up.
    h.agent.steer("also check the tests");
    h.agent.followUp("a follow-up for later");
    return { sse: wire.openaiChat({ toolCalls: [{ id: "c1", name: "list_dir", arguments: { path: "." } }] }) };
  });
  h.agent.followUp("start");
  const outcomes = await h.agent.run();
  assert.equal(outcomes.length, 2, "the follow-up ran as its own turn");
  const users = h.agent.session
    .events()
    .filter((e) => e.type === "user/message")
    .map((e) => [(e.data as any).content[0].text, (e.data as any).origin]);
  assert.deepEqual(users, [
    ["start", undefined],
    ["also check the tests", "steer"],
    ["a follow-up for later", undefined],
  ]);
  const turns = h.agent.session
    .events()
    .filter((e) => e.type === "turn/start" || e.type === "step/start" || e.type === "user/message")
    .map((e) => e.type);
  assert.deepEqual(turns, [
    "turn/start",
    "step/start",
    "user/message",
    "step/start",
    "user/message",
    "turn/start",
    "step/start",
    "user/message",
  ]);
});

test("max steps stops a turn that keeps calling tools", async (t) => {
  let n = 0;
  const h = await startHarness(
    t,
    () => ({ sse: wire.openaiChat({ toolCalls: [{ id: `c${n++}`, name: "list_dir", arguments: { path: "." } }] }) }),
    { agent: { maxSteps: 3 } },
  );
  h.agent.followUp("loop forever");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "max-steps");
  assert.equal(h.server.requests.length, 3);
});

test("an empty answer is logged but kept off the Surface, so the next request stays valid", async (t) => {
  let n = 0;
  const h = await startHarness(t, () => ({ sse: wire.openaiChat(n++ === 0 ? {} : { text: "second" }) }), {
    protocol: "openai-chat",
  });
  h.agent.followUp("first");
  const [first] = await h.agent.run();
  assert.equal(first!.reason, "completed");
  h.agent.followUp("again");
  await h.agent.run();
  const session = h.agent.session;
  assert.equal(session.events().filter((e) => e.type === "assistant/message").length, 2);
  assert.deepEqual(
    session.surface.nodes.map((s) => session.event(s)!.type),
    ["user/message", "user/message", "assistant/message"],
  );
  const roles = h
    .bodies()
    .at(-1)
    .messages.map((m: { role: string }) => m.role);
  assert.deepEqual(roles, ["system", "user", "user"]);
});
