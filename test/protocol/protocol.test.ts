import assert from "node:assert/strict";
import { test } from "node:test";
import { ContentBlock, GenerateOptions, Message, SessionEvent, StreamChunk, contextTokens } from "../../core/protocol";
import { Session, SessionEventError } from "../../core/session";

test("content blocks: every kind parses and a wrong shape is refused", () => {
  const blocks = [
    { type: "text", text: "a" },
    { type: "reasoning", text: "b" },
    { type: "image", mediaType: "image/png", data: "AAAA" },
    { type: "file", uri: "file:///x.ts" },
    { type: "tool-call", id: "1", name: "read_file", arguments: { path: "x" } },
    { type: "tool-result", toolCallId: "1", toolName: "read_file", content: [{ type: "text", text: "ok" }] },
  ];
  for (const block of blocks) assert.deepEqual(ContentBlock.parse(block), block);
  assert.equal(
    ContentBlock.safeParse({ type: "tool-call", id: "1", name: "x", arguments: "not an object" }).success,
    false,
  );
  assert.equal(ContentBlock.safeParse({ type: "video" }).success, false);
});

test("messages, stream chunks and generate options validate", () => {
  assert.ok(
    Message.safeParse({
      role: "assistant",
      content: [],
      replayState: { adapter: "anthropic-messages", version: 1, data: { sig: "x" } },
    }).success,
  );
  assert.equal(Message.safeParse({ role: "tool", content: [] }).success, false);
  assert.ok(
    StreamChunk.safeParse({ type: "block-start", index: 0, block: { type: "tool-call", id: "c", name: "n" } }).success,
  );
  assert.ok(StreamChunk.safeParse({ type: "finish", reason: "tool-calls" }).success);
  assert.equal(StreamChunk.safeParse({ type: "text-delta", index: -1, text: "" }).success, false);
  assert.ok(
    GenerateOptions.safeParse({ provider: "p", model: "m", messages: [], signal: new AbortController().signal })
      .success,
  );
  assert.equal(GenerateOptions.safeParse({ provider: "p", model: "m", messages: [], temperature: 5 }).success, false);
});

test("session events: unknown types validate; bad seqs do not", () => {
  assert.ok(SessionEvent.safeParse({ seq: 1, time: 0, type: "x/y", data: { any: 1 } }).success);
  assert.equal(SessionEvent.safeParse({ seq: 0, time: 0, type: "x", data: null }).success, false);
});

test("context tokens use totalTokens, else input + output", () => {
  assert.equal(contextTokens({ inputTokens: 10, outputTokens: 5, totalTokens: 40 }), 40);
  assert.equal(contextTokens({ inputTokens: 10, outputTokens: 5 }), 15);
});

test("request/error and compaction/* events have schemas: malformed data is rejected, later fields kept", () => {
  const session = new Session({ id: "s" });
  assert.throws(
    () => session.append("request/error", { attempt: 0, kind: "transient", message: "x" } as never),
    SessionEventError,
  );
  assert.throws(() => session.append("compaction/end", { folded: 1 } as never), SessionEventError);
  assert.throws(() => session.append("compaction/error", { reason: "usage" } as never), SessionEventError);
  const ok = session.append("compaction/start", {
    reason: "usage",
    deep: false,
    contextWindow: null,
    futureField: 1,
  } as never);
  assert.equal((ok.data as { futureField: number }).futureField, 1);
  session.append("request/error", { attempt: 1, kind: "transient", message: "boom", retryInMs: 50 });
});
