import assert from "node:assert/strict";
import { test } from "node:test";
import { wire } from "../support/provider-server";
import { startHarness } from "./harness";

const WINDOW = 10_000;
const isSummaryRequest = (body: any) =>
  JSON.stringify(body.messages?.[0] ?? "").includes("cumulative summary") ||
  String(body.messages?.[0]?.content ?? "").includes("cumulative summary");

/**
 * A provider whose answers report the usage given by `usage()`; summariser calls answer
 * with a numbered summary that quotes the previous one, so cumulativeness is visible.
 */
async function setup(t: any, usage: (call: number) => number) {
  let calls = 0;
  let summaries = 0;
  const summaryBodies: any[] = [];
  const h = await startHarness(
    t,
    ({ body }) => {
      if (isSummaryRequest(body)) {
        summaryBodies.push(body);
        const previous = JSON.stringify(body).match(/SUMMARY-\d+/g) ?? [];
        return {
          sse: wire.openaiChat({
            text: `SUMMARY-${++summaries} merging [${[...new Set(previous)].join(",")}]`,
            usage: { input: 100, output: 20 },
          }),
        };
      }
      const n = calls++;
      return {
        sse: wire.openaiChat({
          text: `answer ${n} ${"lorem ipsum ".repeat(250)}`,
          usage: { input: usage(n) - 100, output: 100 },
        }),
      };
    },
    { agent: { contextWindow: WINDOW } },
  );
  const turn = async (text: string) => {
    h.agent.followUp(`${text} ${"context ".repeat(200)}`);
    const [outcome] = await h.agent.run();
    assert.equal(outcome!.reason, "completed", outcome!.error?.message);
  };
  // Counted as they are appended: closed prefixes leave memory.
  const reasons: string[] = [];
  h.agent.session.on(
    "event",
    (e) => e.type === "compaction/start" && reasons.push((e.data as { reason: string }).reason),
  );
  const compactions = () => reasons;
  return { h, turn, compactions, summaryBodies, callCount: () => calls };
}

test("usage ≥ 95 % closes a prefix into a segment whose footer summary is cumulative; ≤ 50 % next passes", async (t) => {
  // Calls 0..4 at 60 %, call 5 at 96 % (trigger), call 6 at 40 % (verified), 7..10 at 60 %, 11 at 97 %, 12 at 30 %.
  const plan = [6000, 6000, 6000, 6000, 6000, 9600, 4000, 6000, 6000, 6000, 6000, 9700, 3000];
  const { h, turn, compactions, summaryBodies } = await setup(t, (n) => plan[n] ?? 3000);
  for (let i = 0; i < 6; i++) await turn(`task ${i}`);
  assert.deepEqual(compactions(), ["usage"], "the 96 % usage compacted once, after the answer");
  const session = h.agent.session;
  const first = session.summary!;
  assert.ok(first.throughSeq > 0);
  assert.match(first.text, /^SUMMARY-1/);
  assert.equal(session.events()[0]!.seq, first.throughSeq + 1, "memory holds only Active");

  // The next request starts with the summary, and the usage of 40 % passes verification.
  await turn("task 6");
  const firstMessage = JSON.stringify(
    h
      .bodies()
      .filter((b) => !isSummaryRequest(b))
      .at(-1).messages[1],
  );
  assert.match(firstMessage, /SUMMARY-1/);
  assert.deepEqual(compactions(), ["usage"], "≤ 50 % after compaction: no deep compaction");

  for (let i = 7; i < 12; i++) await turn(`task ${i}`);
  assert.deepEqual(compactions(), ["usage", "usage"]);
  // The second summariser call was given the first summary: the footer is cumulative.
  assert.match(JSON.stringify(summaryBodies.at(-1)), /SUMMARY-1/);
  assert.match(session.summary!.text, /^SUMMARY-2 merging \[SUMMARY-1\]/);

  // On disk: the newest segment's footer is the cumulative summary, and paging back
  // reaches the first segment.
  const active = await h.sessions.messages({ sessionId: session.id });
  assert.match(active.summary ?? "", /SUMMARY-2/);
  assert.ok(active.hasOlder);
  const older = await h.sessions.messages({ sessionId: session.id }, { beforeSequence: active.firstSeq });
  assert.equal(older.lastSeq, session.summary!.throughSeq);
  assert.match(older.summary ?? "", /SUMMARY-2/);
  assert.ok(older.hasOlder);
  const oldest = await h.sessions.messages({ sessionId: session.id }, { beforeSequence: older.firstSeq });
  assert.equal(oldest.firstSeq, 1);
  assert.match(oldest.summary ?? "", /SUMMARY-1/);
  assert.equal(oldest.hasOlder, false);
});

test("usage above 50 % after a compaction deep-compacts before the next step", async (t) => {
  const plan = [6000, 6000, 6000, 9600, 7000, 3000, 3000];
  const { h, turn, compactions } = await setup(t, (n) => plan[n] ?? 3000);
  for (let i = 0; i < 4; i++) await turn(`task ${i}`);
  assert.deepEqual(compactions(), ["usage"]);
  await turn("task 4"); // usage 70 % → verification fails → deep compaction before the next step
  assert.deepEqual(compactions(), ["usage"], "a deep compaction waits for the next step's user message");
  await turn("task 5");
  assert.deepEqual(compactions(), ["usage", "verify-failed"]);
  // A deep compaction keeps only the newest user message: the request is system, summary, task 5.
  const request = h
    .bodies()
    .filter((b) => !isSummaryRequest(b))
    .at(-1);
  assert.equal(request.messages.length, 3);
  assert.match(JSON.stringify(request.messages[1]), /conversation-summary/);
  assert.match(JSON.stringify(request.messages[2]), /task 5/);
  await turn("task 6");
  assert.deepEqual(compactions(), ["usage", "verify-failed"], "30 % passes");
});

test("a context-length error without usage folds and retries once", async (t) => {
  let calls = 0;
  let summaries = 0;
  const h = await startHarness(
    t,
    ({ body }) => {
      if (isSummaryRequest(body)) return { sse: wire.openaiChat({ text: `SUMMARY-${++summaries}` }) };
      const n = calls++;
      if (n === 3)
        return wire.error(
          "openai-chat",
          400,
          "This model's maximum context length is 10000 tokens.",
          undefined,
          "context_length_exceeded",
        );
      if (n === 5)
        return wire.error(
          "openai-chat",
          400,
          "This model's maximum context length is 10000 tokens.",
          undefined,
          "context_length_exceeded",
        );
      if (n === 6)
        return wire.error(
          "openai-chat",
          400,
          "This model's maximum context length is 10000 tokens.",
          undefined,
          "context_length_exceeded",
        );
      return { sse: wire.openaiChat({ text: `answer ${n} ${"x".repeat(3000)}` }) };
    },
    { agent: { contextWindow: WINDOW } },
  );
  for (let i = 0; i < 3; i++) {
    h.agent.followUp(`task ${i}`);
    await h.agent.run();
  }
  h.agent.followUp("task 3");
  const [ok] = await h.agent.run();
  assert.equal(ok!.reason, "completed", "the retry after folding succeeded");
  const session = h.agent.session;
  const errors = session.events().filter((e) => e.type === "request/error");
  assert.equal(errors.length, 1);
  assert.equal((errors[0]!.data as { kind: string }).kind, "context-length");
  assert.deepEqual(
    session
      .events()
      .filter((e) => e.type === "compaction/start")
      .map((e) => (e.data as { reason: string }).reason),
    ["context-length"],
  );
  assert.ok(session.summary, "the forced compaction closed a prefix");

  // Twice in a row: one retry only, then the turn fails with the provider's message.
  h.agent.followUp("task 4");
  const [failed] = await h.agent.run();
  assert.equal(failed!.reason, "error");
  assert.match(failed!.error!.message, /maximum context length/);
  assert.equal(calls, 7);
});

test("a failing summariser does not fail the turn: the error is logged and the next usage decides again", async (t) => {
  let calls = 0;
  let summaryCalls = 0;
  const h = await startHarness(
    t,
    ({ body }) => {
      if (isSummaryRequest(body)) {
        summaryCalls++;
        return wire.error("openai-chat", 500, "summariser is down");
      }
      calls++;
      return { sse: wire.openaiChat({ text: `answer ${"y".repeat(5000)}`, usage: { input: 9600, output: 100 } }) };
    },
    { agent: { contextWindow: WINDOW } },
  );
  const errors: string[] = [];
  h.agent.session.on(
    "event",
    (e) => e.type === "compaction/error" && errors.push((e.data as { message: string }).message),
  );
  for (let i = 0; i < 3; i++) {
    h.agent.followUp(`task ${i}`);
    const [outcome] = await h.agent.run();
    assert.equal(outcome!.reason, "completed");
  }
  assert.equal(calls, 3);
  assert.ok(summaryCalls >= 2, "every turn over 95 % tried again");
  assert.equal(errors.length, summaryCalls);
  assert.match(errors[0]!, /summariser is down/);
  assert.equal(h.agent.session.summary, undefined, "nothing was closed");
});
