import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { StreamChunk } from "../../core/protocol";
import type { Protocol } from "../../core/llm/types";
import { wire, type ScriptedReply } from "../support/provider-server";
import { PATHS, PROTOCOLS_UNDER_TEST, call, collect, routedHarness, type Harness } from "./helpers";

/** One scripted reply per request, chosen by the test before each call. */
let next: (protocol: Protocol) => ScriptedReply;
let h: Harness;

before(async () => {
  h = await routedHarness((protocol) => next(protocol));
});
after(() => h.close());

/** The finish chunk without replayState (asserted separately), so sequences compare across protocols. */
function withoutReplay(chunks: StreamChunk[]): StreamChunk[] {
  return chunks.map((c) => (c.type === "finish" ? { type: "finish", reason: c.reason } : c));
}

const usageFor = (protocol: Protocol, input: number, output: number) =>
  protocol === "anthropic-messages"
    ? { inputTokens: input, outputTokens: output, totalTokens: input + output }
    : { inputTokens: input, outputTokens: output, totalTokens: input + output, cacheReadTokens: 0, reasoningTokens: 0 };

for (const protocol of PROTOCOLS_UNDER_TEST) {
  describe(`${protocol} stream translation`, () => {
    test("plain text streams as one text block, then usage and finish", async () => {
      next = () => ({ sse: wire.frames(protocol, { text: "Hello world", usage: { input: 12, output: 3 } }) });
      const { chunks, assembler } = await collect(h.clients, call(protocol));
      assert.deepEqual(withoutReplay(chunks), [
        { type: "block-start", index: 0, block: { type: "text" } },
        { type: "text-delta", index: 0, text: "Hell" },
        { type: "text-delta", index: 0, text: "o wo" },
        { type: "text-delta", index: 0, text: "rld" },
        { type: "block-end", index: 0 },
        { type: "usage", usage: usageFor(protocol, 12, 3) },
        { type: "finish", reason: "stop" },
      ]);
      const message = assembler.message();
      assert.deepEqual(message.content, [{ type: "text", text: "Hello world" }]);
      assert.equal(message.finishReason, "stop");
      assert.deepEqual(message.usage, usageFor(protocol, 12, 3));
      if (protocol === "openai-chat") assert.equal(message.replayState, undefined);
      else assert.equal(message.replayState?.adapter, `${protocol}:${call(protocol).provider}`);
    });

    test("reasoning streams as its own block before the answer", async () => {
      next = () => ({ sse: wire.frames(protocol, { reasoning: "Let me think", text: "Done", chunkSize: 6 }) });
      const { chunks, assembler } = await collect(h.clients, call(protocol));
      assert.deepEqual(withoutReplay(chunks), [
        { type: "block-start", index: 0, block: { type: "reasoning" } },
        { type: "reasoning-delta", index: 0, text: "Let me" },
        { type: "reasoning-delta", index: 0, text: " think" },
        { type: "block-end", index: 0 },
        { type: "block-start", index: 1, block: { type: "text" } },
        { type: "text-delta", index: 1, text: "Done" },
        { type: "block-end", index: 1 },
        ...(protocol === "anthropic-messages"
          ? [{ type: "usage", usage: usageFor(protocol, 0, 0) } as StreamChunk]
          : []),
        { type: "finish", reason: "stop" },
      ]);
      assert.deepEqual(assembler.blocks(), [
        { type: "reasoning", text: "Let me think" },
        { type: "text", text: "Done" },
      ]);
    });

    test("parallel tool calls with interleaved argument deltas land in their own blocks", async () => {
      next = () => ({
        sse: wire.frames(protocol, {
          toolCalls: [
            { id: "call_a", name: "read_file", arguments: { path: "src/a.ts" } },
            { id: "call_b", name: "grep", arguments: { pattern: "TODO" } },
          ],
          chunkSize: 8,
          usage: { input: 40, output: 20 },
        }),
      });
      const { chunks, assembler } = await collect(h.clients, call(protocol));
      const a = { type: "tool-call", id: "call_a", name: "read_file", arguments: { path: "src/a.ts" } } as const;
      const b = { type: "tool-call", id: "call_b", name: "grep", arguments: { pattern: "TODO" } } as const;
      assert.deepEqual(withoutReplay(chunks), [
        { type: "block-start", index: 0, block: { type: "tool-call", id: "call_a", name: "read_file" } },
        { type: "block-start", index: 1, block: { type: "tool-call", id: "call_b", name: "grep" } },
        { type: "tool-call-delta", index: 0, argumentsDelta: '{"path":' },
        { type: "tool-call-delta", index: 1, argumentsDelta: '{"patter' },
        { type: "tool-call-delta", index: 0, argumentsDelta: '"src/a.t' },
        { type: "tool-call-delta", index: 1, argumentsDelta: 'n":"TODO' },
        { type: "tool-call-delta", index: 0, argumentsDelta: 's"}' },
        { type: "tool-call-delta", index: 1, argumentsDelta: '"}' },
        { type: "block-end", index: 0, block: a },
        { type: "block-end", index: 1, block: b },
        { type: "usage", usage: usageFor(protocol, 40, 20) },
        { type: "finish", reason: "tool-calls" },
      ]);
      assert.deepEqual(assembler.blocks(), [a, b]);
      assert.deepEqual(assembler.completedToolCallIds(), ["call_a", "call_b"]);
      assert.equal(assembler.finishReason, "tool-calls");
    });

    test("invalid tool-call JSON becomes {} plus invalidArguments, keeping the raw text", async () => {
      next = () => ({
        sse: wire.frames(protocol, { toolCalls: [{ id: "call_x", name: "edit", arguments: '{"path": "a.ts", ' }] }),
      });
      const { assembler } = await collect(h.clients, call(protocol));
      const [block] = assembler.blocks();
      assert.equal(block?.type, "tool-call");
      if (block?.type !== "tool-call") return;
      assert.deepEqual(block.arguments, {});
      assert.equal(block.invalidArguments?.raw, '{"path": "a.ts", ');
      assert.match(block.invalidArguments?.error ?? "", /not valid JSON/);
    });

    test("the request reaches the protocol's endpoint with the SDK's auth", async () => {
      next = () => ({ sse: wire.frames(protocol, { text: "ok" }) });
      const before = h.server.requests.length;
      await collect(h.clients, call(protocol));
      const request = h.server.requests[before]!;
      assert.equal(request.path, PATHS[protocol]);
      assert.equal(request.body.stream, true);
      assert.ok(String(request.headers.authorization ?? request.headers["x-api-key"]).includes("test-key"));
    });
  });
}

describe("openai-chat compatible servers", () => {
  test("Ollama-style `reasoning` field and a usage-only final chunk are understood", async () => {
    next = () => ({
      sse: wire.openaiChat({
        reasoning: "hmm",
        text: "ok",
        reasoningField: "reasoning",
        usage: { input: 5, output: 2 },
      }),
    });
    const { chunks, assembler } = await collect(h.clients, call("openai-chat"));
    assert.deepEqual(assembler.blocks(), [
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "ok" },
    ]);
    // usage arrived after finish_reason in a choice-less chunk and is still reported before finish
    assert.deepEqual(
      chunks.slice(-2).map((c) => c.type),
      ["usage", "finish"],
    );
    assert.equal(h.server.requests.at(-1)!.body.stream_options.include_usage, true);
  });

  test("a server that says finish_reason=stop after tool calls still yields tool-calls", async () => {
    next = () => ({ sse: wire.openaiChat({ toolCalls: [{ id: "c1", name: "ls", arguments: {} }], finish: "stop" }) });
    const { assembler } = await collect(h.clients, call("openai-chat"));
    assert.equal(assembler.finishReason, "tool-calls");
  });
});
