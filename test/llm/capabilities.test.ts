import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ModelClients } from "../../core/llm";
import { chatCompat, serverKind } from "../../core/llm/compat";
import { lookupModel } from "../../core/llm/model-table";
import { resolveCapabilities } from "../../core/llm/capabilities";
import { startProviderServer, type ProviderServer } from "../support/provider-server";

let server: ProviderServer;
before(async () => {
  server = await startProviderServer(({ method, path, body }) => {
    if (method === "POST" && path === "/api/show") {
      if (body?.model === "llama3:8b") {
        return {
          json: { parameters: 'stop "<|eot_id|>"\nnum_ctx 16384', model_info: { "llama.context_length": 131072 } },
        };
      }
      return { json: { model_info: { "qwen2.context_length": 32768, "general.architecture": "qwen2" } } };
    }
    if (path === "/props") return { json: { default_generation_settings: { n_ctx: 8192 }, total_slots: 1 } };
    if (path === "/v1/models")
      return { json: { object: "list", data: [{ id: "Qwen/Qwen3-8B", object: "model", max_model_len: 40960 }] } };
    return { status: 404, json: { error: "not found" } };
  });
});
after(() => server.close());

describe("model capabilities", () => {
  test("the built-in table matches dated snapshots and gateway prefixes by longest prefix", () => {
    assert.equal(lookupModel("openai-chat", "gpt-4o-2024-08-06")?.contextWindow, 128_000);
    assert.equal(lookupModel("openai-chat", "gpt-4o-mini")?.maxOutputTokens, 16_384);
    assert.equal(lookupModel("openai-chat", "openai/gpt-4.1-mini")?.contextWindow, 1_047_576);
    assert.equal(lookupModel("anthropic-messages", "claude-sonnet-4-5-20250929")?.maxOutputTokens, 64_000);
    assert.equal(lookupModel("openai-chat", "deepseek-reasoner")?.reasoning, true);
    assert.equal(lookupModel("openai-responses", "deepseek-chat"), undefined, "not served over Responses");
    assert.equal(lookupModel("openai-chat", "my-finetune"), undefined);
  });

  test("profile overrides win over the table; unknown models keep contextWindow undefined", () => {
    const profile = { id: "p", protocol: "openai-chat" as const, models: { "gpt-4o": { contextWindow: 64_000 } } };
    assert.deepEqual(resolveCapabilities(profile, "gpt-4o"), {
      contextWindow: 64_000,
      maxOutputTokens: 16_384,
      reasoning: false,
      images: true,
      contextWindowSource: "profile",
    });
    const unknown = resolveCapabilities(profile, "mystery");
    assert.equal(unknown.contextWindow, undefined);
    assert.equal(unknown.contextWindowSource, undefined);
  });

  test("Ollama: num_ctx from the Modelfile parameters, else model_info *.context_length", async () => {
    const clients = new ModelClients({
      profiles: [{ id: "ollama", protocol: "openai-chat", baseURL: server.baseURL, server: "ollama" }],
    });
    assert.deepEqual(await clients.capabilities("ollama", "llama3:8b"), {
      reasoning: false,
      images: true,
      contextWindow: 16_384,
      contextWindowSource: "server",
    });
    assert.equal((await clients.capabilities("ollama", "qwen2:7b")).contextWindow, 32_768);
    const asked = server.requests.filter((r) => r.path === "/api/show").length;
    await clients.capabilities("ollama", "qwen2:7b");
    assert.equal(server.requests.filter((r) => r.path === "/api/show").length, asked, "answers are cached");
    // prepareCall (synchronous) sees what capabilities() learned.
    assert.equal(
      clients.prepareCall({ provider: "ollama", model: "qwen2:7b", messages: [] }).capabilities.contextWindow,
      32_768,
    );
  });

  test("llama.cpp /props and vLLM /v1/models max_model_len", async () => {
    const clients = new ModelClients({
      profiles: [
        { id: "llama", protocol: "openai-chat", baseURL: server.baseURL, server: "llama.cpp" },
        { id: "vllm", protocol: "openai-chat", baseURL: server.baseURL, server: "vllm" },
      ],
    });
    assert.equal((await clients.capabilities("llama", "whatever")).contextWindow, 8192);
    assert.equal((await clients.capabilities("vllm", "Qwen/Qwen3-8B")).contextWindow, 40_960);
    assert.equal((await clients.capabilities("vllm", "not-served")).contextWindow, undefined, "unknown stays unknown");
  });

  test("an unnamed server is never probed, and a remote API never is", async () => {
    const before = server.requests.length;
    const clients = new ModelClients({
      profiles: [
        { id: "x", protocol: "openai-chat", baseURL: server.baseURL },
        { id: "oai", protocol: "openai-chat" },
      ],
    });
    assert.equal((await clients.capabilities("x", "local-model")).contextWindow, undefined);
    assert.equal((await clients.capabilities("oai", "gpt-4o")).contextWindow, 128_000);
    assert.equal(server.requests.length, before);
  });

  test("compat: inferred server kinds and their quirks, profile compat on top", () => {
    const deepseek = { id: "d", protocol: "openai-chat" as const, baseURL: "https://api.deepseek.com/v1" };
    assert.equal(serverKind(deepseek), "deepseek");
    assert.equal(serverKind({ id: "o", protocol: "openai-chat", baseURL: "http://localhost:11434/v1" }), "ollama");
    assert.equal(serverKind({ id: "o", protocol: "openai-chat", baseURL: "http://example.com:11434/v1" }), "other");
    const caps = { reasoning: true, images: false };
    assert.deepEqual(chatCompat(deepseek, caps), {
      maxTokensField: "max_tokens",
      systemRole: "system",
      echoReasoning: "with-tool-calls",
      streamUsage: true,
      reasoningEffort: false,
      reasoningField: "reasoning_content",
    });
    assert.equal(chatCompat({ ...deepseek, compat: { streamUsage: false } }, caps).streamUsage, false);
    assert.equal(
      chatCompat({ id: "o", protocol: "openai-chat" }, { reasoning: false, images: true }).reasoningEffort,
      false,
    );
  });

  test("a malformed profile is rejected with the field named", () => {
    const clients = new ModelClients();
    assert.throws(
      () => clients.addProfile({ id: "bad", protocol: "openai-chat", baseURL: "not a url" }),
      /invalid provider profile "bad".*baseURL/s,
    );
    assert.throws(() => clients.addProfile({ id: "bad", protocol: "gemini" as never }), /protocol/);
    assert.equal(clients.profile("bad"), undefined);
  });
});
