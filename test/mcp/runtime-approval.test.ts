import assert from "node:assert/strict";
import { test } from "node:test";
import type { ApprovalRequest } from "../../core/agent";
import { settingsForPolicy } from "../../core/agent/approval";
import type { ToolResultData } from "../../core/protocol";
import { wire } from "../support/provider-server";
import { startHarness } from "../agent/harness";
import { config, everythingServer, fixtureServer, testHost } from "./helpers";
import { toolCallsThen } from "../support/tool-turn";

const results = (h: { agent: { session: { events(): readonly { type: string; data: unknown }[] } } }) =>
  h.agent.session
    .events()
    .filter((e) => e.type === "tool/result")
    .map((e) => e.data as ToolResultData);
const approvals = (h: { agent: { session: { events(): readonly { type: string; data: unknown }[] } } }) =>
  h.agent.session
    .events()
    .filter((e) => e.type === "tool/approval")
    .map((e) => e.data as { decision: string; by: string });
const textOf = (d: ToolResultData) => d.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");

test("the model gets the MCP tools at the first run; each call is approved like a command and its result is logged", async (t) => {
  const mcp = testHost(t, "/");
  mcp.manager.setConfig(config({ everything: everythingServer() }));
  const asked: ApprovalRequest[] = [];
  const h = await startHarness(
    t,
    toolCallsThen([{ id: "m1", name: "mcp__everything__echo", arguments: { message: "hello mcp" } }]),
    {
      agent: { policy: "edits", approve: async (req) => (asked.push(req), { approved: true }) },
      runtime: { mcpTools: () => mcp.manager.tools() },
    },
  );
  assert.equal(mcp.manager.status()[0]!.state, "stopped", "no server starts before a run");
  await h.agent.followUp("echo something");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "completed");
  const offered = (
    h.bodies()[0] as { tools: { function: { name: string; parameters: { required?: string[] } } }[] }
  ).tools.map((x) => x.function);
  const echo = offered.find((f) => f.name === "mcp__everything__echo");
  assert.deepEqual(echo?.parameters.required, ["message"]);
  assert.ok(
    offered.some((f) => f.name === "read_file"),
    "beside the built-in tools",
  );
  assert.equal(asked.length, 1, "auto-approved edits do not cover MCP calls: they ask like a command");
  assert.equal(asked[0]!.kind, "command");
  assert.equal(asked[0]!.summary, 'call echo on the MCP server "everything" with {"message":"hello mcp"}');
  const [result] = results(h);
  assert.equal(textOf(result!), "Echo: hello mcp");
  assert.equal(result!.outcome, "done");
});

test("an MCP tool's `command` argument never matches the command allow-list; 'always allow' for the tool runs it unasked", async (t) => {
  let always = false;
  const mcp = testHost(t, "/", { alwaysAllowed: (server, tool) => always && server === "fx" && tool === "ok" });
  mcp.manager.setConfig(config({ fx: fixtureServer() }));
  let n = 0;
  const call = () => ({
    sse: wire.openaiChat({
      toolCalls: [{ id: `c${n}`, name: "mcp__fx__ok", arguments: { word: "w", command: "ls" } }],
    }),
  });
  const h = await startHarness(t, () => (n++ % 2 === 0 ? call() : { sse: wire.openaiChat({ text: "ok" }) }), {
    runtime: { mcpTools: () => mcp.manager.tools(), approval: () => settingsForPolicy("edits", ["ls"]) },
  });
  await h.agent.followUp("go");
  await h.agent.run();
  const [refused] = results(h);
  assert.equal(refused!.outcome, "refused");
  assert.match(
    textOf(refused!),
    /^Nothing ran: this command \(mcp__fx__ok\) was refused by the approval policy: command tools need approval and no one can be asked/,
  );

  always = true;
  await h.agent.followUp("again");
  await h.agent.run();
  const ran = results(h)[1]!;
  assert.equal(textOf(ran), "ok w");
  assert.deepEqual(
    approvals(h).map((a) => [a.decision, a.by]),
    [
      ["denied", "policy"],
      ["approved", "user"],
    ],
  );
});

for (const what of ["tool", "server"] as const) {
  test(`'Always allow' (${what}) on an MCP call: the host persists it, and later calls${what === "server" ? " of the server's other tools" : ""} run unasked`, async (t) => {
    const allowed = new Set<string>();
    const persisted: string[] = [];
    const mcp = testHost(t, "/", {
      alwaysAllowed: (server, tool) => allowed.has(server) || allowed.has(`${server}/${tool}`),
      allowAlways: async (server, tool, w) => {
        persisted.push(`${server}/${tool}/${w}`);
        allowed.add(w === "server" ? server : `${server}/${tool}`);
      },
    });
    mcp.manager.setConfig(config({ fx: fixtureServer() }));
    const second = what === "server" ? "env" : "ok";
    const script = [
      { toolCalls: [{ id: "a1", name: "mcp__fx__ok", arguments: { word: "one" } }] },
      { text: "one" },
      { toolCalls: [{ id: "a2", name: `mcp__fx__${second}`, arguments: { word: "two", name: "NOPE" } }] },
      { text: "two" },
      { toolCalls: [{ id: "a3", name: "mcp__fx__huge", arguments: { chars: 5 } }] },
      { text: "three" },
    ];
    let n = 0;
    const asked: ApprovalRequest[] = [];
    const h = await startHarness(t, () => ({ sse: wire.openaiChat(script[n++]!) }), {
      agent: {
        policy: "edits",
        approve: async (req) => {
          asked.push(req);
          return asked.length === 1 ? { approved: true, scope: "always", always: what } : { approved: false };
        },
      },
      runtime: { mcpTools: () => mcp.manager.tools() },
    });
    for (const text of ["first", "second", "third"]) {
      await h.agent.followUp(text);
      await h.agent.run();
    }
    const offered = h.events.flatMap((e) => (e.type === "approval-requested" ? [e.mcp] : []));
    assert.deepEqual(offered[0], { server: "fx", tool: "ok" }, "the card is told it may offer 'always'");
    assert.deepEqual(persisted, [`fx/ok/${what}`]);
    const data = approvals(h) as { decision: string; by: string; scope?: string }[];
    assert.deepEqual(data[0], { toolCallId: "a1", decision: "approved", by: "user", scope: "always" });
    assert.deepEqual(
      [data[1]!.decision, data[1]!.by, data[1]!.scope],
      ["approved", "user", "always"],
      "the second call ran unasked",
    );
    // Per tool: another tool of the server still asks (denied here); per server: it runs too.
    assert.equal(data[2]!.decision, what === "server" ? "approved" : "denied");
    assert.equal(asked.length, what === "server" ? 1 : 2);
  });
}

test("a tool disabled for its schema is told in the chat as a notice; the run goes on", async (t) => {
  const mcp = testHost(t, "/");
  mcp.manager.setConfig(config({ fx: fixtureServer() }));
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "hi" }) }), {
    runtime: { mcpTools: () => mcp.manager.tools() },
  });
  await h.agent.followUp("hello");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "completed");
  const notices = h.events.filter((e) => e.type === "notice").map((e) => (e as { message: string }).message);
  assert.ok(
    notices.some((m) => /tool "bad_schema" is disabled because its inputSchema is malformed/.test(m)),
    notices.join("\n"),
  );
  const names = (h.bodies()[0] as { tools: { function: { name: string } }[] }).tools.map((x) => x.function.name);
  assert.ok(names.includes("mcp__fx__ok") && !names.includes("mcp__fx__bad_schema"));
});

test("'Allow for this session' on an MCP call covers that tool for the session, not the server's other tools", async (t) => {
  const mcp = testHost(t, "/");
  mcp.manager.setConfig(config({ fx: fixtureServer() }));
  const asked: string[] = [];
  let n = 0;
  const calls = [
    [{ id: "a1", name: "mcp__fx__ok", arguments: { word: "one" } }],
    [
      { id: "a2", name: "mcp__fx__ok", arguments: { word: "two" } },
      { id: "a3", name: "mcp__fx__env", arguments: { name: "HOME" } },
    ],
  ];
  // Requests alternate: a turn's tool calls, then its answer.
  const h = await startHarness(
    t,
    () => {
      const i = n++;
      return i % 2 === 0
        ? { sse: wire.openaiChat({ toolCalls: calls[i / 2]! }) }
        : { sse: wire.openaiChat({ text: "ok" }) };
    },
    {
      agent: {
        policy: "edits",
        approve: async (req) => (
          asked.push(req.toolName),
          req.toolName === "mcp__fx__ok" ? { approved: true, scope: "session" } : { approved: false }
        ),
      },
      runtime: { mcpTools: () => mcp.manager.tools() },
    },
  );
  await h.agent.followUp("first");
  await h.agent.run();
  await h.agent.followUp("second");
  await h.agent.run();
  assert.deepEqual(asked, ["mcp__fx__ok", "mcp__fx__env"], "the second ok ran unasked; env was still asked about");
  assert.deepEqual(
    results(h).map((r) => [r.toolName, r.outcome]),
    [
      ["mcp__fx__ok", "done"],
      ["mcp__fx__ok", "done"],
      ["mcp__fx__env", "refused"],
    ],
  );
});

test("an MCP call's progress reaches the chat as tool-output events for its card, before its result", async (t) => {
  const mcp = testHost(t, "/");
  mcp.manager.setConfig(config({ everything: everythingServer() }));
  const h = await startHarness(
    t,
    toolCallsThen([
      {
        id: "p1",
        name: "mcp__everything__trigger-long-running-operation",
        arguments: { duration: 0.2, steps: 2 },
      },
    ]),
    {
      agent: { policy: "edits", approve: async () => ({ approved: true }) },
      runtime: { mcpTools: () => mcp.manager.tools() },
    },
  );
  await h.agent.followUp("run it");
  await h.agent.run();
  const forCall = h.events.filter(
    (e) =>
      (e.type === "tool-output" && e.toolCallId === "p1") ||
      (e.type === "session-event" && e.event.type === "tool/result"),
  );
  assert.deepEqual(
    forCall.map((e) => (e.type === "tool-output" ? e.update : e.type)),
    [{ text: "progress 1/2\n", stream: "progress" }, { text: "progress 2/2\n", stream: "progress" }, "session-event"],
  );
  assert.match(textOf(results(h)[0]!), /Long running operation completed/);
});
