// The connect form's connection test against a real HTTP server on 127.0.0.1 speaking
// each provider's wire format: what it lists, what it calls, and how a failure is named.
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkConnection, hostPort, probeModels } from "../../core/llm/probe";
import type { Protocol } from "../../core/llm/types";
import { freePort } from "../support/workbench/code-server";
import { startProviderServer, wire, type ProviderHandler } from "../support/provider-server";

const KEY = "sk-probe-5c1e9a77";
const KINDS: {
  protocol: Protocol;
  base: (s: { baseURL: string; anthropicBaseURL: string }) => string;
  models: string;
  call: string;
  stream: (text: string) => string[];
  authHeader: (h: Record<string, unknown>) => unknown;
}[] = [
  {
    protocol: "openai-chat",
    base: (s) => s.baseURL,
    models: "/v1/models",
    call: "/v1/chat/completions",
    stream: (text) => wire.openaiChat({ text }),
    authHeader: (h) => h.authorization,
  },
  {
    protocol: "openai-responses",
    base: (s) => s.baseURL,
    models: "/v1/models",
    call: "/v1/responses",
    stream: (text) => wire.openaiResponses({ text }),
    authHeader: (h) => h.authorization,
  },
  {
    protocol: "anthropic-messages",
    base: (s) => s.anthropicBaseURL,
    models: "/v1/models",
    call: "/v1/messages",
    stream: (text) => wire.anthropic({ text }),
    authHeader: (h) => h["x-api-key"],
  },
];

async function server(t: { after(fn: () => unknown): void }, handler: ProviderHandler) {
  const s = await startProviderServer(handler);
  t.after(() => s.close());
  return s;
}

for (const kind of KINDS) {
  test(`${kind.protocol}: a listed model connects with one models request carrying the key`, async (t) => {
    const s = await server(t, ({ path }) =>
      path === kind.models
        ? { json: { data: [{ id: "m-large" }, { id: "m-small" }] } }
        : wire.error(kind.protocol, 500, "unexpected"),
    );
    const target = { protocol: kind.protocol, baseURL: kind.base(s), apiKey: KEY };
    assert.deepEqual(await probeModels(target), { models: ["m-large", "m-small"], status: 200 });
    assert.deepEqual(await checkConnection(target, "m-small"), { ok: true, models: ["m-large", "m-small"] });
    assert.deepEqual(
      s.requests.map((r) => r.path),
      [kind.models, kind.models],
    );
    assert.ok(
      s.requests.every(
        (r) => kind.authHeader(r.headers) === (kind.protocol === "anthropic-messages" ? KEY : `Bearer ${KEY}`),
      ),
    );
  });

  test(`${kind.protocol}: with no models endpoint, one minimal call in the protocol's wire format decides`, async (t) => {
    const s = await server(t, ({ path }) =>
      path === kind.call ? { sse: kind.stream("OK") } : { status: 404, json: { error: { message: "not found" } } },
    );
    const result = await checkConnection(
      { protocol: kind.protocol, baseURL: kind.base(s), apiKey: KEY },
      "served-model",
    );
    assert.deepEqual(result, { ok: true, models: [] });
    const call = s.requests.find((r) => r.path === kind.call);
    assert.ok(call, `no ${kind.call} request: ${s.requests.map((r) => r.path).join(", ")}`);
    assert.equal(call.body.model, "served-model");
    // The call carries the key in the protocol's own header, as the models request does: Anthropic's
    // in x-api-key and no bearer token (the SDK's default), which a server checking x-api-key refuses.
    assert.equal(kind.authHeader(call.headers), kind.protocol === "anthropic-messages" ? KEY : `Bearer ${KEY}`);
    if (kind.protocol === "anthropic-messages") assert.equal(call.headers.authorization, undefined);
  });

  test(`${kind.protocol}: a refused key is named as the key's failure, with host:port and status, never echoing it`, async (t) => {
    const s = await server(t, () => wire.error(kind.protocol, 401, "invalid x-api-key"));
    const result = await checkConnection({ protocol: kind.protocol, baseURL: kind.base(s), apiKey: KEY }, "m");
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.field, "apiKey");
    assert.match(
      result.message,
      new RegExp(`^127\\.0\\.0\\.1:${new URL(s.origin).port} refused the API key \\(HTTP 401: invalid x-api-key\\)`),
    );
    assert.doesNotMatch(result.message, new RegExp(KEY));
  });

  test(`${kind.protocol}: a model the server does not serve is named as the model's failure, with what it lists`, async (t) => {
    const s = await server(t, ({ path }) =>
      path === kind.models
        ? { json: { data: [{ id: "llama3" }] } }
        : wire.error(kind.protocol, 404, "model 'gpt-9' not found"),
    );
    const result = await checkConnection({ protocol: kind.protocol, baseURL: kind.base(s) }, "gpt-9");
    assert.ok(!result.ok);
    assert.equal(result.field, "model");
    assert.match(result.message, /does not serve gpt-9 \(HTTP 404: .*not found\)\. The server lists: llama3\./);
  });
}

test("a server that is down is named by host:port as the Base URL's failure, and no call is tried", async () => {
  const port = await freePort();
  const result = await checkConnection({ protocol: "openai-chat", baseURL: `http://127.0.0.1:${port}/v1` }, "m");
  assert.deepEqual(result, {
    ok: false,
    field: "baseURL",
    message: `Cannot reach 127.0.0.1:${port} (connection refused: is the server running?). Check the Base URL.`,
  });
});

test("a keyless local server gets no Authorization header; needing one is said so", async (t) => {
  const s = await server(t, () => wire.error("openai-chat", 401, "Missing bearer token"));
  const result = await checkConnection({ protocol: "openai-chat", baseURL: s.baseURL }, "m");
  assert.ok(!result.ok);
  assert.equal(result.field, "apiKey");
  assert.match(result.message, /needs an API key \(HTTP 401: Missing bearer token\)/);
  assert.equal(s.requests[0]!.headers.authorization, undefined);
});

test("Restricted Mode makes no model call: an unlisted model is not tried", async (t) => {
  const s = await server(t, () => ({ json: { data: [{ id: "other" }] } }));
  const result = await checkConnection({ protocol: "openai-chat", baseURL: s.baseURL }, "m", { allowCall: false });
  assert.ok(!result.ok);
  assert.equal(result.field, "model");
  assert.deepEqual(
    s.requests.map((r) => r.path),
    ["/v1/models"],
  );
});

test("Ollama's native list is used when /v1/models lists nothing", async (t) => {
  const s = await server(t, ({ path }) =>
    path === "/api/tags" ? { json: { models: [{ name: "qwen2.5:7b" }] } } : { status: 404, json: {} },
  );
  assert.deepEqual((await probeModels({ protocol: "openai-chat", baseURL: s.baseURL })).models, ["qwen2.5:7b"]);
});

test("hostPort spells the default port out", () => {
  assert.equal(hostPort("https://api.openai.com/v1"), "api.openai.com:443");
  assert.equal(hostPort("http://localhost/v1"), "localhost:80");
  assert.equal(hostPort("http://127.0.0.1:11434/v1"), "127.0.0.1:11434");
});
