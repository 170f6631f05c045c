import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { GenerateOptions, Message, ReplayState } from "../../core/protocol";
import type { Protocol } from "../../core/llm/types";
import { textHash } from "../../core/llm/replay";
import { wire, type ScriptedReply } from "../support/provider-server";
import { PATHS, PROFILE_IDS, PROTOCOL_MODELS, collect, harness, type Harness } from "./helpers";

let h: Harness;
before(async () => {
  h = await harness(({ path }): ScriptedReply => {
    if (path === PATHS["openai-chat"]) return { sse: wire.openaiChat({ text: "ok" }) };
    if (path === PATHS["openai-responses"]) return { sse: wire.openaiResponses({ text: "ok" }) };
    return { sse: wire.anthropic({ text: "ok" }) };
  });
});
after(() => h.close());

const PNG = "iVBORw0KGgoAAAANSUhEUg==";
const image = { type: "image", mediaType: "image/png", data: PNG } as const;
const THOUGHT = "I should read the file";

/** A conversation as deriveMessages produces it: one user message per tool result. */
function conversation(replayState?: ReplayState): Message[] {
  const assistant: Message = {
    role: "assistant",
    content: [
      { type: "reasoning", text: THOUGHT },
      { type: "text", text: "Reading it." },
      { type: "tool-call", id: "call_1", name: "read_file", arguments: { path: "a.ts" } },
      { type: "tool-call", id: "call_2", name: "grep", arguments: { pattern: "x" } },
    ],
  };
  if (replayState) assistant.replayState = replayState;
  return [
    { role: "user", content: [{ type: "text", text: "Look at this" }, image] },
    assistant,
    {
      role: "user",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_1",
          toolName: "read_file",
          content: [{ type: "text", text: "file body" }, image],
        },
      ],
    },
    {
      role: "user",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_2",
          toolName: "grep",
          content: [{ type: "text", text: "match" }],
          isError: true,
        },
      ],
    },
    { role: "user", content: [{ type: "text", text: "thanks" }] },
  ];
}

const TOOL = {
  name: "read_file",
  description: "Read a file",
  parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function options(protocol: Protocol, messages: Message[], extra: Partial<GenerateOptions> = {}): GenerateOptions {
  return {
    provider: PROFILE_IDS[protocol],
    model: PROTOCOL_MODELS[protocol],
    system: "You are helpful",
    messages,
    tools: [TOOL],
    maxTokens: 1000,
    temperature: 0.2,
    stop: ["END"],
    ...extra,
  };
}

async function sentBody(protocol: Protocol, opts: GenerateOptions): Promise<any> {
  const count = h.server.requests.length;
  await collect(h.clients, opts);
  const request = h.server.requests.slice(count).find((r) => r.path === PATHS[protocol]);
  assert.ok(request, "the call reached the server");
  return request.body;
}

const dataUrl = `data:image/png;base64,${PNG}`;

describe("request bodies", () => {
  test("openai-chat: tool calls, tool messages first, tool images after them, no reasoning echo", async () => {
    const body = await sentBody("openai-chat", options("openai-chat", conversation()));
    assert.deepEqual(body.messages, [
      { role: "system", content: "You are helpful" },
      {
        role: "user",
        content: [
          { type: "text", text: "Look at this" },
          { type: "image_url", image_url: { url: dataUrl } },
        ],
      },
      {
        role: "assistant",
        content: "Reading it.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
          { id: "call_2", type: "function", function: { name: "grep", arguments: '{"pattern":"x"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "file body" },
      { role: "tool", tool_call_id: "call_2", content: "match" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by read_file (call_1):" },
          { type: "image_url", image_url: { url: dataUrl } },
          { type: "text", text: "thanks" },
        ],
      },
    ]);
    assert.deepEqual(body.tools, [{ type: "function", function: TOOL }]);
    assert.equal(body.model, "gpt-4o");
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
    assert.equal(body.max_tokens, 1000, "a generic compatible server gets max_tokens");
    assert.equal(body.temperature, 0.2);
    assert.deepEqual(body.stop, ["END"]);
  });

  test("openai-chat against DeepSeek echoes reasoning_content on tool-call turns only", async () => {
    h.clients.addProfile({
      id: "deepseek",
      protocol: "openai-chat",
      baseURL: h.server.baseURL,
      apiKey: "k",
      server: "deepseek",
    });
    const messages: Message[] = [
      ...conversation(),
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "plain turn" },
          { type: "text", text: "done" },
        ],
      },
      { role: "user", content: [{ type: "text", text: "again" }] },
    ];
    const body = await sentBody("openai-chat", {
      ...options("openai-chat", messages),
      provider: "deepseek",
      model: "deepseek-reasoner",
    });
    const assistants = body.messages.filter((m: any) => m.role === "assistant");
    assert.equal(assistants[0].reasoning_content, THOUGHT);
    assert.equal("reasoning_content" in assistants[1], false);
    // DeepSeek takes no images: they become a note, and user content stays a plain string.
    assert.equal(body.messages[1].content, "Look at this\n[image omitted: this model does not accept images]");
    assert.equal(body.max_tokens, 1000);
  });

  test("openai-chat against api.openai.com-style compat uses max_completion_tokens and reasoning_effort", async () => {
    h.clients.addProfile({
      id: "oai",
      protocol: "openai-chat",
      baseURL: h.server.baseURL,
      apiKey: "k",
      server: "openai",
    });
    const body = await sentBody("openai-chat", {
      ...options("openai-chat", [{ role: "user", content: [{ type: "text", text: "hi" }] }]),
      provider: "oai",
      model: "o4-mini",
      reasoningEffort: "high",
    });
    assert.equal(body.max_completion_tokens, 1000);
    assert.equal(body.max_tokens, undefined);
    assert.equal(body.reasoning_effort, "high");
    assert.equal(body.temperature, undefined, "reasoning models on OpenAI reject temperature");
  });

  test("openai-responses: input items, reasoning item from replayState, function calls and outputs", async () => {
    const replay: ReplayState = {
      adapter: "openai-responses:responses",
      version: 1,
      data: {
        model: "gpt-5",
        responseId: "resp_prev",
        reasoning: [
          {
            hash: textHash(THOUGHT),
            id: "rs_1",
            summary: [{ type: "summary_text", text: THOUGHT }],
            encrypted_content: "enc_1",
          },
        ],
      },
    };
    const body = await sentBody(
      "openai-responses",
      options("openai-responses", conversation(replay), { reasoningEffort: "low" }),
    );
    assert.equal(body.instructions, "You are helpful");
    assert.deepEqual(body.input, [
      {
        role: "user",
        content: [
          { type: "input_text", text: "Look at this" },
          { type: "input_image", image_url: dataUrl, detail: "auto" },
        ],
      },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: THOUGHT }], encrypted_content: "enc_1" },
      { role: "assistant", content: "Reading it." },
      { type: "function_call", call_id: "call_1", name: "read_file", arguments: '{"path":"a.ts"}' },
      { type: "function_call", call_id: "call_2", name: "grep", arguments: '{"pattern":"x"}' },
      {
        type: "function_call_output",
        call_id: "call_1",
        output: [
          { type: "input_text", text: "file body" },
          { type: "input_image", image_url: dataUrl, detail: "auto" },
        ],
      },
      { type: "function_call_output", call_id: "call_2", output: "match" },
      { role: "user", content: [{ type: "input_text", text: "thanks" }] },
    ]);
    assert.deepEqual(body.tools, [{ type: "function", ...TOOL, strict: false }]);
    assert.equal(body.store, false);
    assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
    assert.deepEqual(body.reasoning, { summary: "auto", effort: "low" });
    assert.equal(body.max_output_tokens, 1000);
    assert.equal(body.temperature, undefined);
  });

  test("anthropic-messages: system, signed thinking, tool_use, merged tool_results first, cache breakpoints", async () => {
    const replay: ReplayState = {
      adapter: "anthropic-messages:anthropic",
      version: 1,
      data: {
        model: "claude-opus-4-1",
        messageId: "msg_prev",
        reasoning: [{ hash: textHash(THOUGHT), signature: "sig_1" }],
      },
    };
    const body = await sentBody("anthropic-messages", options("anthropic-messages", conversation(replay)));
    const source = { type: "base64", media_type: "image/png", data: PNG };
    assert.deepEqual(body.system, [{ type: "text", text: "You are helpful", cache_control: { type: "ephemeral" } }]);
    assert.deepEqual(body.messages, [
      {
        role: "user",
        content: [
          { type: "text", text: "Look at this" },
          { type: "image", source },
        ],
      },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: THOUGHT, signature: "sig_1" },
          { type: "text", text: "Reading it." },
          { type: "tool_use", id: "call_1", name: "read_file", input: { path: "a.ts" } },
          { type: "tool_use", id: "call_2", name: "grep", input: { pattern: "x" } },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "call_1",
            content: [
              { type: "text", text: "file body" },
              { type: "image", source },
            ],
          },
          { type: "tool_result", tool_use_id: "call_2", content: [{ type: "text", text: "match" }], is_error: true },
          { type: "text", text: "thanks", cache_control: { type: "ephemeral" } },
        ],
      },
    ]);
    assert.deepEqual(body.tools, [{ name: "read_file", description: "Read a file", input_schema: TOOL.parameters }]);
    assert.equal(body.max_tokens, 1000);
    assert.deepEqual(body.stop_sequences, ["END"]);
    assert.equal(body.temperature, 0.2);
  });

  test("anthropic-messages: thinking config from reasoningEffort, no temperature; default max_tokens", async () => {
    const body = await sentBody("anthropic-messages", {
      provider: "anthropic",
      model: "claude-opus-4-1",
      messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
      reasoningEffort: "medium",
      temperature: 0.5,
    });
    assert.equal(body.max_tokens, 32_000, "the model's output limit when the caller gave none");
    assert.deepEqual(body.thinking, { type: "enabled", budget_tokens: 10_000 });
    assert.equal(body.temperature, undefined);
  });
});
