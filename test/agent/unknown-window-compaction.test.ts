import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_CONTEXT_WINDOW, type AgentEvent } from "../../core/protocol";
import { wire } from "../support/provider-server";
import { isSummaryRequest } from "../compaction/helpers";
import { startHarness, type Harness } from "./harness";

/**
 * Issue 19 item 7 (unknown window): compaction measures against the same window as the
 * meter and the status bar: the configured (or server-given) one, else the stated
 * DEFAULT_CONTEXT_WINDOW. A model nobody knows must not grow its context unbounded.
 */

/** A model name absent from the built-in table, so only the profile, the server or the default can give a window. */
const UNKNOWN_MODEL = "local-unknown-model";

/** Answers every turn with `input` tokens of real usage; summary requests get a short summary. */
const replying =
  (input: number) =>
  ({ body }: { body: any }) =>
    isSummaryRequest(body)
      ? { sse: wire.openaiChat({ text: "Summary: the user asked questions.", usage: { input: 200, output: 10 } }) }
      : { sse: wire.openaiChat({ text: "An answer.", usage: { input, output: 10 } }) };

/** Every `compaction/start` as logged (closed prefixes leave the Active log, so they are collected as appended). */
function compactionStarts(h: Harness): { reason: string; contextWindow: number | null }[] {
  const seen: { reason: string; contextWindow: number | null }[] = [];
  h.agent.session.on("event", (e) => {
    if (e.type === "compaction/start") seen.push(e.data as { reason: string; contextWindow: number | null });
  });
  return seen;
}
const usages = (h: Harness) => h.events.filter((e): e is Extract<AgentEvent, { type: "usage" }> => e.type === "usage");

async function turns(h: Harness, n: number): Promise<void> {
  for (let i = 1; i <= n; i++) {
    h.agent.followUp(`question ${i}`);
    const [outcome] = await h.agent.run();
    assert.equal(outcome!.reason, "completed", outcome!.error?.message);
  }
}

test("an unknown window compacts at 95 % of the stated default, the figure the usage event reports", async (t) => {
  const h = await startHarness(t, replying(Math.ceil(0.96 * DEFAULT_CONTEXT_WINDOW)), {
    runtime: { model: () => ({ provider: "test", model: UNKNOWN_MODEL }) },
  });
  const starts = compactionStarts(h);
  await turns(h, 3);
  assert.ok(starts.length >= 1, "usage at 96 % of the default window schedules a compaction");
  assert.equal(starts[0]!.reason, "usage");
  assert.equal(starts[0]!.contextWindow, DEFAULT_CONTEXT_WINDOW, "compaction logs the window it measured against");
  const usage = usages(h)[0]!;
  assert.equal(usage.contextWindow, DEFAULT_CONTEXT_WINDOW, "the meter's figure is the same window");
  assert.equal(usage.windowAssumed, true, "and it says the window is assumed");
});

test("an unknown model below 95 % of the stated default does not compact", async (t) => {
  const h = await startHarness(t, replying(Math.floor(0.9 * DEFAULT_CONTEXT_WINDOW)), {
    runtime: { model: () => ({ provider: "test", model: UNKNOWN_MODEL }) },
  });
  const starts = compactionStarts(h);
  await turns(h, 3);
  assert.deepEqual(starts, []);
});

test("a configured window wins over the stated default, for compaction and the meter alike", async (t) => {
  const configured = 4 * DEFAULT_CONTEXT_WINDOW;
  const h = await startHarness(t, replying(Math.ceil(0.96 * DEFAULT_CONTEXT_WINDOW)), {
    runtime: { model: () => ({ provider: "test", model: UNKNOWN_MODEL, contextWindow: configured }) },
  });
  const starts = compactionStarts(h);
  await turns(h, 3);
  assert.deepEqual(starts, [], "96 % of the default is 24 % of the configured window");
  const usage = usages(h)[0]!;
  assert.equal(usage.contextWindow, configured);
  assert.equal(usage.windowAssumed, undefined);
});
