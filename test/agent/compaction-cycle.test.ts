import assert from "node:assert/strict";
import { test } from "node:test";
import type { Protocol } from "../../core/llm/types";
import { wire } from "../support/provider-server";
import { PROTOCOLS_UNDER_TEST } from "../llm/helpers";
import { isSummaryRequest, stringChars } from "../compaction/helpers";
import { startHarness, tempWorkspace, type Harness } from "./harness";

// Issue 10: the compaction cycle whatever the language, tokenizer and process.

/** The conversation messages of a request, without the system prompt, in any protocol. */
function conversation(protocol: Protocol, body: any): unknown[] {
  if (protocol === "openai-chat") return body.messages.filter((m: { role: string }) => m.role !== "system");
  if (protocol === "openai-responses") return body.input;
  return body.messages;
}

const SENTENCE = "我们继续讨论这个项目的设计与实现细节，确保每一步都清楚可靠。";
const zh = (tag: string, n: number) => (tag + SENTENCE.repeat(Math.ceil(n / SENTENCE.length))).slice(0, n);

function compactionsOf(h: Harness): { reason: string; closed: number }[] {
  const seen: { reason: string; closed: number }[] = [];
  h.agent.session.on("event", (e) => {
    if (e.type === "compaction/end")
      seen.push({ reason: (e.data as { reason: string }).reason, closed: (e.data as { closed: number }).closed });
  });
  return seen;
}

for (const protocol of PROTOCOLS_UNDER_TEST) {
  test(`a Chinese session at 96 % keeps about the retained share, and the next usage passes (${protocol})`, async (t) => {
    const WINDOW = 40_000;
    const ANSWER = 1500;
    const usages: number[] = [];
    let answers = 0;
    const h = await startHarness(
      t,
      ({ body }) => {
        if (isSummaryRequest(body))
          return {
            sse: wire.frames(protocol, {
              text: "摘要：用户与助手讨论了项目的设计。",
              usage: { input: 3000, output: 20 },
            }),
          };
        const text = zh(`回答${++answers}：`, ANSWER);
        const input = stringChars(body);
        usages.push(input + text.length);
        return { sse: wire.frames(protocol, { text, usage: { input, output: text.length } }) };
      },
      { protocol, agent: { contextWindow: WINDOW } },
    );
    const compactions = compactionsOf(h);
    const turn = async (text: string) => {
      h.agent.followUp(text);
      const [outcome] = await h.agent.run();
      assert.equal(outcome!.reason, "completed", outcome!.error?.message);
    };
    // Questions of 1,500 characters until one more, padded, lands the request at 96 %.
    for (let i = 1; usages.length === 0 || usages.at(-1)! + 3 * ANSWER + 1500 < 0.96 * WINDOW; i++)
      await turn(zh(`问题${i}：`, 1500));
    assert.equal(compactions.length, 0, "below 95 % nothing compacts");
    const pad = Math.round(0.96 * WINDOW) - usages.at(-1)! - ANSWER - 60;
    await turn(zh("最后的问题：", pad));
    const trigger = usages.at(-1)! / WINDOW;
    assert.ok(trigger >= 0.95 && trigger < 0.97, `usage was ${trigger}`);
    assert.equal(compactions.length, 1);
    assert.equal(compactions[0]!.reason, "usage");
    assert.ok(compactions[0]!.closed > 0, "a prefix was closed");
    // Hosts see it as typed agent events.
    const started = h.events.filter((e) => e.type === "compaction-started");
    const finished = h.events.filter((e) => e.type === "compaction-finished");
    assert.deepEqual(
      started.map((e) => e.reason),
      ["usage"],
    );
    assert.equal(finished.length, 1);
    assert.equal(finished[0]!.type === "compaction-finished" && finished[0]!.closed, compactions[0]!.closed);

    await turn("继续。");
    const request = h
      .bodies()
      .filter((b) => !isSummaryRequest(b))
      .at(-1);
    const messages = conversation(protocol, request);
    assert.match(JSON.stringify(messages[0]), /conversation-summary/, "the request starts with the summary");
    const keptChars = stringChars(messages) - stringChars(messages, (text) => text.includes("<conversation-summary"));
    const retained = 0.16 * WINDOW; // tokens, at about one token per character
    // The cut falls at a message boundary: at most one message (the padded one) over the share.
    assert.ok(
      keptChars <= retained + Math.max(pad, ANSWER) + 200,
      `kept ${keptChars} characters, about the retained ${retained} (plus one message)`,
    );
    assert.ok(keptChars >= retained * 0.6, `kept ${keptChars} characters: the tail was not dropped`);
    assert.ok(usages.at(-1)! / WINDOW <= 0.5, `the next usage ${usages.at(-1)! / WINDOW} passes verification`);
    await turn("再继续。");
    assert.equal(compactions.length, 1, "verification passed: no deep compaction");
  });

  test(`usage above 50 % after a compaction deep-compacts before the next step after a restart (${protocol})`, async (t) => {
    const WINDOW = 10_000;
    const plan = [6000, 6000, 9600, 7000];
    let calls = 0;
    const handler = ({ body }: { body: unknown }) => {
      if (isSummaryRequest(body))
        return {
          sse: wire.frames(protocol, { text: "SUMMARY of the earlier tasks", usage: { input: 100, output: 20 } }),
        };
      const n = calls++;
      return {
        sse: wire.frames(protocol, {
          text: `answer ${n} ${"lorem ipsum ".repeat(250)}`,
          usage: { input: (plan[n] ?? 3000) - 100, output: 100 },
        }),
      };
    };
    const root = tempWorkspace(t);
    const first = await startHarness(t, handler, { protocol, root, agent: { contextWindow: WINDOW } });
    const before = compactionsOf(first);
    for (let i = 0; i < 4; i++) {
      first.agent.followUp(`task ${i} ${"context ".repeat(200)}`);
      await first.agent.run();
    }
    assert.deepEqual(
      before.map((c) => c.reason),
      ["usage"],
      "96 % compacted; 70 % next failed verification",
    );
    const id = first.agent.session.id;
    await first.runtime.close();

    // A new process: nothing in memory says a compaction just failed to reduce enough.
    const second = await startHarness(t, handler, { protocol, root, sessionId: id, agent: { contextWindow: WINDOW } });
    const after = compactionsOf(second);
    second.agent.followUp("task 4 FRESH");
    const [outcome] = await second.agent.run();
    assert.equal(outcome!.reason, "completed", outcome!.error?.message);
    assert.deepEqual(
      after.map((c) => c.reason),
      ["verify-failed"],
      "the restarted process deep-compacted before its first step",
    );
    const request = JSON.stringify(
      conversation(
        protocol,
        second
          .bodies()
          .filter((b) => !isSummaryRequest(b))
          .at(-1),
      ),
    );
    assert.match(request, /SUMMARY of the earlier tasks/);
    assert.match(request, /task 4 FRESH/);
    assert.doesNotMatch(request, /task [0-3] |answer \d/, "only the summary and the newest user message");
  });

  test(`a deep compaction inside a tool loop keeps the open transaction and restates the user message (${protocol})`, async (t) => {
    const WINDOW = 10_000;
    const plan = [6000, 9600, 7000, 3000];
    let calls = 0;
    const h = await startHarness(
      t,
      ({ body }) => {
        if (isSummaryRequest(body))
          return {
            sse: wire.frames(protocol, { text: "SUMMARY of the loop so far", usage: { input: 100, output: 20 } }),
          };
        const n = calls++;
        const usage = { input: plan[n]! - 100, output: 100 };
        if (n === 1 || n === 2)
          return {
            sse: wire.frames(protocol, {
              toolCalls: [{ id: `toolu_${n}`, name: "list_dir", arguments: { path: "." } }],
              usage,
            }),
          };
        return { sse: wire.frames(protocol, { text: `answer ${n} ${"lorem ipsum ".repeat(250)}`, usage }) };
      },
      { protocol, agent: { contextWindow: WINDOW } },
    );
    const reasons: string[] = [];
    h.agent.session.on(
      "event",
      (e) => e.type === "compaction/start" && reasons.push((e.data as { reason: string }).reason),
    );
    h.agent.followUp(`task 1 ${"context ".repeat(200)}`);
    await h.agent.run();
    h.agent.followUp(`LOOP-TASK ${"context ".repeat(200)}`);
    const [outcome] = await h.agent.run();
    assert.equal(outcome!.reason, "completed", outcome!.error?.message);
    assert.deepEqual(reasons, ["usage", "verify-failed"], "96 % in step 1, 70 % in step 2, deep before step 3");
    const last = JSON.stringify(
      conversation(
        protocol,
        h
          .bodies()
          .filter((b) => !isSummaryRequest(b))
          .at(-1),
      ),
    );
    assert.match(last, /SUMMARY of the loop so far/);
    assert.match(last, /toolu_2/, "the open tool transaction is kept");
    assert.doesNotMatch(last, /toolu_1|answer 0/, "earlier steps are closed");
    assert.ok(
      last.indexOf("LOOP-TASK") > last.lastIndexOf("toolu_2"),
      "the user message is restated after the open transaction",
    );
  });

  test(`a window smaller than the system prompt and tools ends the turn with a clear error, no loop (${protocol})`, async (t) => {
    let calls = 0;
    const h = await startHarness(
      t,
      ({ body }) => {
        calls++;
        if (isSummaryRequest(body)) throw new Error("nothing should be summarised");
        const input = stringChars(body);
        return { sse: wire.frames(protocol, { text: "Hello.", usage: { input, output: 2 } }) };
      },
      { protocol, agent: { contextWindow: 1000 } },
    );
    const starts: string[] = [];
    h.agent.session.on(
      "event",
      (e) => e.type === "compaction/start" && starts.push((e.data as { reason: string }).reason),
    );
    for (const [i, expectCalls] of [
      [1, 1],
      [2, 1],
      [3, 1],
    ] as const) {
      h.agent.followUp(`hi ${i}`);
      const [outcome] = await h.agent.run();
      assert.equal(outcome!.reason, "error");
      assert.match(outcome!.error!.message, /the system prompt and tools alone use [\d,]+ of 1,000 tokens/);
      assert.equal(calls, expectCalls, "after the first answer no request is sent into a window that cannot hold it");
      assert.equal(starts.length, i, "one compaction attempt per turn, not a loop");
    }
    const end = h.agent.session.events().findLast((e) => e.type === "compaction/end")!.data as {
      cause: string;
      closed: number;
    };
    assert.equal(end.cause, "overhead");
    assert.equal(end.closed, 0);
  });

  test(`a context-length error with nothing left to compact ends the turn at once (${protocol})`, async (t) => {
    let calls = 0;
    const h = await startHarness(
      t,
      () => {
        calls++;
        return wire.error(
          protocol,
          400,
          "prompt is too long: 9000 tokens > 1000 maximum",
          undefined,
          "context_length_exceeded",
        );
      },
      { protocol, agent: { contextWindow: 1000 } },
    );
    h.agent.followUp("hi");
    const [outcome] = await h.agent.run();
    assert.equal(outcome!.reason, "error");
    assert.match(outcome!.error!.message, /nothing is left to compact/);
    assert.equal(calls, 1, "no retry of a request that cannot shrink");
  });
}
