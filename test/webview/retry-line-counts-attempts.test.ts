import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionEvent } from "../../core/protocol";
import { Conversation, type ProblemItem } from "../../webview/conversation";

/**
 * Issue 19 item 8: the retries of one request are one line that updates in place. A
 * provider's retry-after is often the same on every attempt, so the line says which
 * attempt failed: without it, three retries showed the same text three times over and the
 * line never visibly changed (first5-errors-ui step 01).
 */
test("each retry of one request updates the one line's text with the attempt that failed", () => {
  const conversation = new Conversation();
  let seq = 0;
  const event = (type: string, data: unknown): SessionEvent => ({ seq: ++seq, time: 1_700_000_000_000, type, data });
  const failed = (attempt: number) =>
    event("request/error", {
      attempt,
      kind: "transient",
      message: "transient provider error: 503 upstream unavailable",
      retryInMs: 100,
      server: "127.0.0.1:8080",
      setting: "downcity.providers",
    });
  conversation.append(event("turn/start", {}));
  conversation.append(event("user/message", { content: [{ type: "text", text: "hi" }] }));
  const texts: string[] = [];
  for (const attempt of [1, 2, 3]) {
    conversation.append(failed(attempt));
    const rows = conversation.items.filter((i): i is ProblemItem => i.kind === "problem");
    assert.equal(rows.length, 1, "one line for the request's retries");
    assert.equal(rows[0]!.state, "retrying");
    texts.push(rows[0]!.text);
  }
  assert.equal(new Set(texts).size, 3, `the line's text changes on every retry: ${JSON.stringify(texts)}`);
  assert.match(texts[0]!, /127\.0\.0\.1:8080.*attempt 1 failed, retrying in 0\.1 s$/);
  assert.match(texts[2]!, /attempt 3 failed, retrying in 0\.1 s$/);
});
