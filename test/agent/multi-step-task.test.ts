import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Protocol } from "../../core/llm/types";
import type { ToolResultData } from "../../core/protocol";
import { wire } from "../support/provider-server";
import { startHarness, tempWorkspace } from "./harness";

const STEPS = [
  { toolCalls: [{ id: "call_read", name: "read_file", arguments: { path: "src/greet.txt" } }] },
  {
    toolCalls: [
      {
        id: "call_edit",
        name: "edit_file",
        arguments: { path: "src/greet.txt", edits: [{ oldText: "world", newText: "downcity" }] },
      },
    ],
  },
  { toolCalls: [{ id: "call_run", name: "run_command", arguments: { command: "cat src/greet.txt" } }] },
  { text: "I changed the greeting to hello downcity." },
];

const frames = (protocol: Protocol, step: (typeof STEPS)[number], usage = { input: 1000, output: 50 }) =>
  wire.frames(protocol, { ...step, usage });

for (const protocol of ["openai-chat", "openai-responses", "anthropic-messages"] as const) {
  test(`a read → edit → run → answer task over ${protocol} changes the file and leaves the expected log`, async (t) => {
    const root = tempWorkspace(t);
    mkdirSync(join(root, "src"));
    writeFileSync(join(root, "src/greet.txt"), "hello world\n");
    let call = 0;
    const h = await startHarness(t, () => ({ sse: frames(protocol, STEPS[Math.min(call++, STEPS.length - 1)]!) }), {
      protocol,
      root,
    });

    h.agent.followUp("Change the greeting to say downcity, then show the file.");
    const [outcome] = await h.agent.run();
    assert.equal(outcome!.reason, "completed", outcome!.error?.message);
    assert.equal(outcome!.steps, 4);
    assert.equal(readFileSync(join(root, "src/greet.txt"), "utf8"), "hello downcity\n");

    const session = h.agent.session;
    const types = session.events().map((e) => e.type);
    assert.deepEqual(
      types.filter((t) => t !== "session/title"),
      [
        "turn/start",
        ...[
          "step/start",
          "user/message",
          "request/header",
          "assistant/message",
          "tool/call",
          "tool/approval",
          "tool/result",
          "step/end",
        ],
        ...[
          "step/start",
          "request/header",
          "assistant/message",
          "tool/call",
          "tool/approval",
          "tool/result",
          "step/end",
        ],
        ...[
          "step/start",
          "request/header",
          "assistant/message",
          "tool/call",
          "tool/approval",
          "tool/result",
          "step/end",
        ],
        ...["step/start", "request/header", "assistant/message", "step/end"],
        "turn/end",
      ],
    );
    // Surface: user, then (assistant, tool result) × 3, then the answer.
    const surfaceTypes = session.surface.nodes.map((seq) => session.event(seq)!.type);
    assert.deepEqual(surfaceTypes, [
      "user/message",
      ...Array(3).fill(["assistant/message", "tool/result"]).flat(),
      "assistant/message",
    ]);
    const runResult = session
      .events()
      .filter((e) => e.type === "tool/result")
      .at(-1)!.data as ToolResultData;
    assert.match((runResult.content[0] as { text: string }).text, /hello downcity/);
    assert.equal(session.title.source, "fallback");

    // The last request carried the whole tool conversation in the protocol's shape.
    const last = h.bodies().at(-1);
    const text = JSON.stringify(last);
    for (const id of ["call_read", "call_edit", "call_run"])
      assert.ok(text.includes(id), `${id} is echoed in the last request`);
    if (protocol === "openai-chat") {
      assert.deepEqual(
        last.messages.map((m: { role: string }) => m.role),
        ["system", "user", "assistant", "tool", "assistant", "tool", "assistant", "tool"],
      );
    }

    // Everything is durable after the turn: a fresh store sees the same log.
    const page = await h.sessions.messages({ sessionId: session.id });
    assert.equal(page.events.length, session.events().length);
  });
}
