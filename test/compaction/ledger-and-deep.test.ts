import assert from "node:assert/strict";
import { test } from "node:test";
import { CompactionConfig, ContextChars } from "../../core/compaction";
import { blocksChars } from "../../core/compaction/measure";
import { CompactionLedger } from "../../core/compaction/ledger";
import { selectDeep } from "../../core/compaction/select";
import { Session } from "../../core/session";
import { assistant, user } from "../support/events";

const config = CompactionConfig.parse({});
const WINDOW = 10_000;

function toolStep(session: Session, id: string): { call: number; result: number } {
  const call = session.append(
    "assistant/message",
    { content: [{ type: "tool-call", id, name: "read_file", arguments: { path: "a" } }] },
    { surface: "append" },
  ).seq;
  const result = session.append(
    "tool/result",
    { toolCallId: id, toolName: "read_file", content: [{ type: "text", text: "out" }] },
    { surface: "append" },
  ).seq;
  return { call, result };
}

test("a deep selection keeps only the open tool transaction and the newest user message", () => {
  // Inside a tool loop: earlier steps are closed and the user message restated.
  const loop = new Session({ id: "s" });
  user(loop, "old task");
  assistant(loop, "old answer");
  const task = user(loop, "task");
  const a = toolStep(loop, "a");
  const b = toolStep(loop, "b");
  const inLoop = selectDeep(loop)!;
  assert.deepEqual(inLoop.kept, [b.call, b.result]);
  assert.equal(inLoop.restate, task);
  assert.equal(inLoop.throughSeq, a.result);

  // A steer after the open transaction is kept with it; nothing is restated.
  const steer = user(loop, "steer");
  const steered = selectDeep(loop)!;
  assert.deepEqual(steered.kept, [b.call, b.result, steer]);
  assert.equal(steered.restate, undefined);

  // At a turn's first step: everything before the new user message is closed.
  const turn = new Session({ id: "t" });
  user(turn, "one");
  assistant(turn, "two");
  const next = user(turn, "three");
  assert.deepEqual(selectDeep(turn)!.kept, [next]);

  // The user message directly before the open transaction: nothing can be closed.
  const bare = new Session({ id: "u" });
  user(bare, "task");
  toolStep(bare, "a");
  assert.equal(selectDeep(bare), undefined);
});

/** A request with its characters and its answer's real usage, as the agent logs them. */
function call(session: Session, tokens: number, chars = { system: 1000, tools: 1000, messages: 1990 }): void {
  session.append("request/header", { provider: "p", model: "m", chars });
  session.append(
    "assistant/message",
    { content: [{ type: "text", text: "0123456789" }], usage: { inputTokens: tokens - 10, outputTokens: 10 } },
    { surface: "append" },
  );
}
const end = (session: Session, data: object) =>
  session.append("compaction/end", { reason: "usage", folded: 0, ...data });

test("the compaction cycle is read from the log: trigger, escalation, verification, errors", () => {
  const session = new Session({ id: "s" });
  const ledger = new CompactionLedger();
  const pending = () => {
    ledger.sync(session);
    return ledger.pending(config, WINDOW)?.reason;
  };
  user(session, "go");
  call(session, 9000);
  assert.equal(pending(), undefined, "90 % is below the trigger");
  assert.equal(ledger.tokensPerChar, 9000 / 4000, "usage over the characters sent plus the answer");
  call(session, 9600);
  assert.equal(pending(), "usage");
  end(session, { closed: 0, cause: "tail-holds-all" });
  assert.equal(pending(), "escalated", "a compaction that closed nothing escalates");
  end(session, { reason: "escalated", deep: true, closed: 4 });
  assert.equal(pending(), undefined, "verifying: waits for the next usage");
  call(session, 7000);
  assert.equal(pending(), "verify-failed", "70 % after a compaction");
  end(session, { reason: "verify-failed", deep: true, closed: 2 });
  call(session, 3000);
  assert.equal(pending(), undefined, "30 % passes");
  call(session, 9700);
  assert.equal(pending(), "usage");
  session.append("compaction/error", { reason: "usage", message: "summariser down" });
  assert.equal(pending(), undefined, "after an error the next usage decides");
  call(session, 9700);
  assert.equal(pending(), "usage");
  end(session, { reason: "escalated", deep: true, closed: 0, cause: "open-transaction" });
  call(session, 9700);
  assert.equal(pending(), undefined, "a deep compaction that removed nothing is not repeated without new input");
  user(session, "more");
  call(session, 9700);
  assert.equal(pending(), "usage");
  end(session, { closed: 0, cause: "overhead", tokensPerChar: 1.5 });
  call(session, 9700);
  assert.equal(pending(), "escalated", "a window smaller than the overhead is checked before every step");
  end(session, { reason: "escalated", deep: true, closed: 1 });
  end(session, { reason: "manual", closed: 0, cause: "tail-holds-all" });
  assert.equal(pending(), undefined, "asked for by hand and nothing to close: no escalation");
  end(session, { closed: 0, cause: "overhead", tokensPerChar: 1.5 });

  // A new process reads the same state from the log alone.
  const cold = new CompactionLedger();
  cold.sync(session);
  assert.equal(cold.pending(config, WINDOW)?.reason, "escalated");
});

test("the measured tokens per character survives the close of the request it came from", () => {
  const session = Session.seed({ id: "s", summary: { throughSeq: 10, text: "so far" } }, [
    { seq: 11, time: 1, type: "compaction/end", data: { reason: "usage", folded: 0, closed: 6, tokensPerChar: 0.9 } },
  ]);
  const ledger = new CompactionLedger();
  ledger.sync(session);
  assert.equal(ledger.tokensPerChar, 0.9);
  assert.equal(ledger.pending(config, WINDOW), undefined, "verifying");
});

test("the characters of the model context are counted incrementally and agree with a full recount", () => {
  const session = new Session({ id: "s" });
  const chars = new ContextChars(session);
  const full = () => session.deriveMessages().reduce((n, m) => n + blocksChars(m.content), 0);
  const sent = () => chars.sent("system", [], session.deriveMessages()).messages;
  user(session, "hello");
  assert.equal(sent(), full());
  const answer = assistant(session, "a".repeat(50));
  assert.equal(sent(), 55);
  session.append(
    "assistant/message",
    { content: [{ type: "text", text: "short" }] },
    { surface: { op: "replace", start: answer, end: answer }, sources: [answer] },
  );
  assert.equal(sent(), full(), "a replace recounts");
  user(session, "more");
  session.closePrefix({ throughSeq: 2, text: "summary" });
  assert.equal(sent(), full(), "a closed prefix recounts (the summary message included)");
  assert.deepEqual(chars.sent("abc", [{ name: "t", description: "d", parameters: {} }], session.deriveMessages()), {
    system: 3,
    tools: 48,
    messages: full(),
  });
});
