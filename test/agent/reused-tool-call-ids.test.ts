import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Protocol } from "../../core/llm/types";
import type { AssistantMessageData, ToolCallBlock, ToolResultData } from "../../core/protocol";
import { Sessions } from "../../core/storage";
import { wire } from "../support/provider-server";
import { startHarness, tempWorkspace } from "./harness";

/** The tool-call and tool-result ids of a request body, in order, in the protocol's wire shape. */
function wireIds(protocol: Protocol, body: any): { kind: "call" | "result"; id: string }[] {
  const out: { kind: "call" | "result"; id: string }[] = [];
  if (protocol === "openai-chat") {
    for (const m of body.messages) {
      for (const c of m.tool_calls ?? []) out.push({ kind: "call", id: c.id });
      if (m.role === "tool") out.push({ kind: "result", id: m.tool_call_id });
    }
  } else if (protocol === "openai-responses") {
    for (const item of body.input) {
      if (item.type === "function_call") out.push({ kind: "call", id: item.call_id });
      if (item.type === "function_call_output") out.push({ kind: "result", id: item.call_id });
    }
  } else {
    for (const m of body.messages) {
      for (const b of Array.isArray(m.content) ? m.content : []) {
        if (b.type === "tool_use") out.push({ kind: "call", id: b.id });
        if (b.type === "tool_result") out.push({ kind: "result", id: b.tool_use_id });
      }
    }
  }
  return out;
}

/** What a strict provider checks: every call id unique, every result answering one earlier, unanswered call. */
function pairingProblem(ids: { kind: "call" | "result"; id: string }[]): string | undefined {
  const calls = new Set<string>();
  const open = new Set<string>();
  for (const { kind, id } of ids) {
    if (kind === "call") {
      if (calls.has(id)) return `tool call id ${id} appears twice`;
      calls.add(id);
      open.add(id);
    } else {
      if (!open.has(id)) return `tool result ${id} answers no open call`;
      open.delete(id);
    }
  }
  return open.size > 0 ? `tool_call_ids did not have response messages: ${[...open].join(", ")}` : undefined;
}

for (const protocol of ["openai-chat", "openai-responses", "anthropic-messages"] as const) {
  test(`a provider that reuses call_0 in every turn (${protocol}): each later request pairs every result with its own call`, async (t) => {
    const root = tempWorkspace(t);
    writeFileSync(join(root, "a.txt"), "alpha\n");
    let n = 0;
    const problems: string[] = [];
    const h = await startHarness(
      t,
      ({ body }) => {
        const problem = pairingProblem(wireIds(protocol, body));
        if (problem) {
          problems.push(problem);
          return wire.error(protocol, 400, problem);
        }
        // Each turn: the model reads a.txt as call_0, then answers.
        return {
          sse: wire.frames(
            protocol,
            n++ % 2 === 0
              ? { toolCalls: [{ id: "call_0", name: "read_file", arguments: { path: "a.txt" } }] }
              : { text: `done ${n}` },
          ),
        };
      },
      { protocol, root },
    );
    for (const turn of [1, 2, 3]) {
      h.agent.followUp(`turn ${turn}: read a.txt`);
      const [outcome] = await h.agent.run();
      assert.equal(outcome!.reason, "completed", `turn ${turn}: ${outcome!.error?.message}`);
    }
    assert.deepEqual(problems, []);
    assert.equal(h.bodies().length, 6, "two requests per turn, none retried");
    // The third turn's answer request carries three distinct calls, each followed by its result.
    const last = wireIds(protocol, h.bodies().at(-1));
    assert.equal(last.length, 6);
    assert.deepEqual(
      last.map((x) => x.kind),
      ["call", "result", "call", "result", "call", "result"],
    );
    assert.equal(new Set(last.filter((x) => x.kind === "call").map((x) => x.id)).size, 3);

    // The log: ids unique, the provider's original kept, each result names its call.
    const events = h.agent.session.events();
    const calls = events
      .filter((e) => e.type === "assistant/message")
      .flatMap((e) =>
        (e.data as AssistantMessageData).content.filter((b): b is ToolCallBlock => b.type === "tool-call"),
      );
    assert.deepEqual(
      calls.map((c) => c.id),
      ["call_0", "call_0_2", "call_0_3"],
    );
    assert.deepEqual(
      calls.map((c) => c.providerId),
      [undefined, "call_0", "call_0"],
    );
    const results = events.filter((e) => e.type === "tool/result").map((e) => (e.data as ToolResultData).toolCallId);
    assert.deepEqual(results, ["call_0", "call_0_2", "call_0_3"]);

    // A fresh store opens the log without repairs: recovery sees every call answered.
    await h.runtime.close();
    const store = new Sessions({ root });
    const { report } = await store.open({ agentId: "code", sessionId: h.agent.session.id });
    assert.equal(report.repaired, false, report.actions.join(" | "));
    await store.close();
  });
}
