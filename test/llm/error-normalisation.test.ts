import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Protocol } from "../../core/llm/types";
import { LlmError } from "../../core/llm";
import { wire, type ScriptedReply } from "../support/provider-server";
import { PATHS, PROTOCOLS_UNDER_TEST, call, collect, collectError, routedHarness, type Harness } from "./helpers";

let next: (protocol: Protocol) => ScriptedReply;
let h: Harness;

before(async () => {
  h = await routedHarness((protocol) => next(protocol));
});
after(() => h.close());

const CONTEXT_MESSAGE: Record<Protocol, [string, string | undefined]> = {
  "openai-chat": [
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.",
    "context_length_exceeded",
  ],
  "openai-responses": [
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
    "context_length_exceeded",
  ],
  "anthropic-messages": ["prompt is too long: 210512 tokens > 200000 maximum", undefined],
};

for (const protocol of PROTOCOLS_UNDER_TEST) {
  describe(`${protocol} errors`, () => {
    test("400 context length exceeded → context-length, provider message kept", async () => {
      const [message, code] = CONTEXT_MESSAGE[protocol];
      next = () => wire.error(protocol, 400, message, undefined, code);
      const { error } = await collectError(h.clients, call(protocol));
      assert.equal(error.kind, "context-length");
      assert.equal(error.details.status, 400);
      assert.equal(error.details.providerMessage, message);
      assert.equal(error.retryable, false);
    });

    test("401 → auth", async () => {
      next = () => wire.error(protocol, 401, "Incorrect API key provided: test-key.");
      const { error } = await collectError(h.clients, call(protocol));
      assert.equal(error.kind, "auth");
      assert.equal(error.details.providerMessage, "Incorrect API key provided: test-key.");
    });

    test("429 with retry-after → rate-limit with retryAfterMs", async () => {
      next = () => wire.error(protocol, 429, "Rate limit reached for requests", { "retry-after": "7" });
      const { error } = await collectError(h.clients, call(protocol));
      assert.equal(error.kind, "rate-limit");
      assert.equal(error.details.retryAfterMs, 7000);
      assert.equal(error.retryable, true);
      // The SDK was told not to retry: exactly one request reached the server.
      assert.equal(h.server.requests.filter((r) => r.path === PATHS[protocol] && r.body?.stream).length > 0, true);
    });

    test("429 with retry-after-ms wins over retry-after", async () => {
      next = () => wire.error(protocol, 429, "slow down", { "retry-after": "7", "retry-after-ms": "1500" });
      const { error } = await collectError(h.clients, call(protocol));
      assert.equal(error.details.retryAfterMs, 1500);
    });

    test("500 → transient", async () => {
      const count = h.server.requests.length;
      next = () => wire.error(protocol, 500, "The server had an error while processing your request.");
      const { error } = await collectError(h.clients, call(protocol));
      assert.equal(error.kind, "transient");
      assert.equal(error.details.status, 500);
      assert.equal(h.server.requests.length, count + 1, "maxRetries: 0 — the agent loop owns retries");
    });

    test("a stream cut mid-event → transient, after the chunks that did arrive", async () => {
      const frames = wire.frames(protocol, { text: "Hello world, this is long", usage: { input: 1, output: 1 } });
      const cutAt = frames.findIndex((f) => f.includes("o wo")) + 1;
      const partial = frames[cutAt]!.slice(0, Math.floor(frames[cutAt]!.length / 2));
      next = () => ({ sse: [...frames.slice(0, cutAt), partial], cutAfter: cutAt + 1 });
      const { error, chunks } = await collectError(h.clients, call(protocol));
      assert.equal(error.kind, "transient");
      assert.ok(error instanceof LlmError);
      const text = chunks
        .filter((c) => c.type === "text-delta")
        .map((c) => (c as { text: string }).text)
        .join("");
      assert.equal(text, "Hello wo");
    });

    test("a stream that closes cleanly before the end marker → transient incomplete-stream", async () => {
      const frames = wire.frames(protocol, { text: "Hello world" });
      const lastText = frames.findIndex((f) => f.includes("rld"));
      next = () => ({ sse: frames.slice(0, lastText + 1) });
      const { error } = await collectError(h.clients, call(protocol));
      assert.equal(error.kind, "transient");
      assert.equal(error.details.code, "incomplete-stream");
    });

    test("a malformed SSE data line → transient malformed-stream", async () => {
      const frames = wire.frames(protocol, { text: "Hello world" });
      const bad =
        protocol === "openai-chat"
          ? 'data: {"id":"x","choices":[{\n\n'
          : 'event: content_block_delta\ndata: {"type":\n\n';
      next = () => ({ sse: [...frames.slice(0, 3), bad, ...frames.slice(3)] });
      const { error } = await collectError(h.clients, call(protocol));
      assert.equal(error.kind, "transient");
      assert.equal(error.details.code, "malformed-stream");
    });

    test("a stray non-SSE line is ignored, as the SSE spec says", async () => {
      const frames = wire.frames(protocol, { text: "Hello world" });
      next = () => ({
        sse: [...frames.slice(0, 2), "this line is not a field\n\n", ": a comment\n\n", ...frames.slice(2)],
      });
      const { assembler } = await collect(h.clients, call(protocol));
      assert.deepEqual(assembler.blocks(), [{ type: "text", text: "Hello world" }]);
    });

    test("an error event inside the stream is classified by its type", async () => {
      const frames = wire.frames(protocol, { text: "Hello world" });
      const [code, kind] =
        protocol === "anthropic-messages"
          ? ["overloaded_error", "transient"]
          : protocol === "openai-responses"
            ? ["rate_limit_exceeded", "rate-limit"]
            : ["server_error", "transient"];
      next = () => ({ sse: [...frames.slice(0, 4), wire.streamError(protocol, code, "Overloaded right now")] });
      const { error } = await collectError(h.clients, call(protocol));
      assert.equal(error.kind, kind);
      assert.equal(error.details.providerMessage, "Overloaded right now");
    });

    test("abort mid-stream → aborted, and the HTTP request is cancelled", async () => {
      const frames = wire.frames(protocol, { text: "Hello world" });
      // Deliver the first text delta, then hold the connection open without ending it.
      next = () => ({ sse: frames, stallAfter: frames.findIndex((f) => f.includes("Hell")) + 1 });
      const controller = new AbortController();
      const count = h.server.requests.length;
      let error: unknown;
      let afterAbort = 0;
      try {
        for await (const chunk of h.clients.stream(call(protocol, { signal: controller.signal }))) {
          if (controller.signal.aborted) afterAbort++;
          if (chunk.type === "text-delta") controller.abort();
        }
      } catch (e) {
        error = e;
      }
      assert.ok(error instanceof LlmError, `expected LlmError, got ${String(error)}`);
      assert.equal(error.kind, "aborted");
      assert.equal(afterAbort, 0, "no chunk is delivered once the signal is aborted");
      const request = h.server.requests[count]!;
      await request.closed; // would hang (and time out the test) if the request stayed open
      assert.equal(request.clientAborted, true);
    });

    test("abort while waiting for the response headers → aborted", async () => {
      next = () => ({ sse: wire.frames(protocol, { text: "late" }), delayMs: 5_000 });
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const { error } = await collectError(h.clients, call(protocol, { signal: controller.signal }));
      assert.equal(error.kind, "aborted");
    });
  });
}

describe("bad input", () => {
  test("an unknown provider profile is a bad-request LlmError before any request", async () => {
    const count = h.server.requests.length;
    const { error } = await collectError(h.clients, { ...call("openai-chat"), provider: "nope" });
    assert.equal(error.kind, "bad-request");
    assert.match(error.message, /unknown provider profile "nope"/);
    assert.equal(h.server.requests.length, count);
  });

  test("an already-aborted signal fails at once without a request", async () => {
    const count = h.server.requests.length;
    const { error } = await collectError(h.clients, call("anthropic-messages", { signal: AbortSignal.abort() }));
    assert.equal(error.kind, "aborted");
    assert.equal(h.server.requests.length, count);
  });

  test("a connection refused is transient", async () => {
    const { ModelClients } = await import("../../core/llm");
    const clients = new ModelClients({
      profiles: [{ id: "dead", protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", apiKey: "k" }],
    });
    const { error } = await collectError(clients, { provider: "dead", model: "gpt-4o", messages: [] });
    assert.equal(error.kind, "transient");
  });
});
