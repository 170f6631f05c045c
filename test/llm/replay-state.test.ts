import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Message } from "../../core/protocol";
import type { Protocol } from "../../core/llm/types";
import { wire, type ScriptedReply } from "../support/provider-server";
import { PATHS, collect, harness, profileFor, userText, type Harness } from "./helpers";

let h: Harness;
const script = {
  reasoning: "Need the file first",
  text: "Let me look.",
  toolCalls: [{ id: "toolu_1", name: "read_file", arguments: { path: "a.ts" } }],
  signature: "sig_live_123",
  usage: { input: 10, output: 5 },
};
before(async () => {
  h = await harness(({ path }): ScriptedReply => {
    if (path === PATHS["openai-chat"]) return { sse: wire.openaiChat({ text: "ok" }) };
    if (path === PATHS["openai-responses"]) return { sse: wire.openaiResponses(script) };
    return { sse: wire.anthropic(script) };
  });
  h.clients.addProfile(profileFor("anthropic-messages", h.server, { id: "anthropic-2" }));
});
after(() => h.close());

/** Streams one turn and returns the assistant message as the session would persist it (JSON round trip). */
async function assistantTurn(protocol: Protocol, provider: string, model: string): Promise<Message> {
  const { assembler } = await collect(h.clients, { provider, model, messages: [userText("read a.ts")] });
  const message: Message = { role: "assistant", ...assembler.message() };
  return JSON.parse(JSON.stringify(message)) as Message;
}

function followUp(assistant: Message): Message[] {
  return [
    userText("read a.ts"),
    assistant,
    {
      role: "user",
      content: [
        {
          type: "tool-result",
          toolCallId: "toolu_1",
          toolName: "read_file",
          content: [{ type: "text", text: "body" }],
        },
      ],
    },
  ];
}

async function nextBody(protocol: Protocol, provider: string, model: string, messages: Message[]): Promise<any> {
  const count = h.server.requests.length;
  await collect(h.clients, { provider, model, messages });
  return h.server.requests.slice(count).find((r) => r.path === PATHS[protocol])!.body;
}

describe("replayState", () => {
  test("anthropic: the thinking signature round-trips through JSON and is echoed on the next call", async () => {
    const assistant = await assistantTurn("anthropic-messages", "anthropic", "claude-opus-4-1");
    assert.equal(assistant.replayState?.adapter, "anthropic-messages:anthropic");
    assert.equal(assistant.replayState?.version, 1);
    assert.equal(
      JSON.stringify(assistant.content).includes("sig_live_123"),
      false,
      "signatures never enter neutral blocks",
    );
    const body = await nextBody("anthropic-messages", "anthropic", "claude-opus-4-1", followUp(assistant));
    assert.deepEqual(body.messages[1].content[0], {
      type: "thinking",
      thinking: "Need the file first",
      signature: "sig_live_123",
    });
  });

  test("anthropic: another profile of the same protocol gets the message without replayState (thinking left out)", async () => {
    const assistant = await assistantTurn("anthropic-messages", "anthropic", "claude-opus-4-1");
    const prepared = h.clients.prepareCall({
      provider: "anthropic-2",
      model: "claude-opus-4-1",
      messages: followUp(assistant),
    });
    assert.equal(prepared.options.messages[1]!.replayState, undefined, "stripped before the adapter sees it");
    assert.ok(assistant.replayState, "the caller's message is not mutated");
    const body = await nextBody("anthropic-messages", "anthropic-2", "claude-opus-4-1", followUp(assistant));
    assert.deepEqual(
      body.messages[1].content.map((b: any) => b.type),
      ["text", "tool_use"],
    );
  });

  test("anthropic → openai-chat: replayState is stripped; only neutral content crosses", async () => {
    const assistant = await assistantTurn("anthropic-messages", "anthropic", "claude-opus-4-1");
    const prepared = h.clients.prepareCall({ provider: "chat", model: "gpt-4o", messages: followUp(assistant) });
    assert.equal(prepared.adapterId, "openai-chat:chat");
    assert.equal(prepared.options.messages[1]!.replayState, undefined);
    const body = await nextBody("openai-chat", "chat", "gpt-4o", followUp(assistant));
    assert.equal(JSON.stringify(body).includes("sig_live_123"), false);
    assert.deepEqual(body.messages[1].tool_calls[0].id, "toolu_1");
  });

  test("anthropic: an edited reasoning text or another model drops the now-invalid signature", async () => {
    const assistant = await assistantTurn("anthropic-messages", "anthropic", "claude-opus-4-1");
    const edited: Message = {
      ...assistant,
      content: assistant.content.map((b) => (b.type === "reasoning" ? { ...b, text: "pruned" } : b)),
    };
    const body = await nextBody("anthropic-messages", "anthropic", "claude-opus-4-1", followUp(edited));
    assert.equal(body.messages[1].content[0].type, "text");
    const otherModel = await nextBody("anthropic-messages", "anthropic", "claude-sonnet-4-0", followUp(assistant));
    assert.equal(otherModel.messages[1].content[0].type, "text");
  });

  test("responses: response id and reasoning item round-trip; the item is echoed with its encrypted content", async () => {
    const assistant = await assistantTurn("openai-responses", "responses", "gpt-5");
    const data = assistant.replayState?.data as { responseId: string; reasoning: Array<{ id: string }> };
    assert.equal(data.responseId, "resp_test");
    assert.equal(data.reasoning[0]!.id, "rs_test");
    const body = await nextBody("openai-responses", "responses", "gpt-5", followUp(assistant));
    assert.deepEqual(body.input[1], {
      type: "reasoning",
      id: "rs_test",
      summary: [{ type: "summary_text", text: "Need the file first" }],
      encrypted_content: "sig_live_123",
    });
    assert.deepEqual(body.input[2], { role: "assistant", content: "Let me look." });
    assert.equal(body.input[3].type, "function_call");
    assert.equal(body.input[4].type, "function_call_output");
  });

  test("responses → anthropic: the foreign replayState is stripped and reasoning is not sent", async () => {
    const assistant = await assistantTurn("openai-responses", "responses", "gpt-5");
    const body = await nextBody("anthropic-messages", "anthropic", "claude-opus-4-1", followUp(assistant));
    assert.deepEqual(
      body.messages[1].content.map((b: any) => b.type),
      ["text", "tool_use"],
    );
  });

  test("a replayState of an unknown version is ignored, not misread", async () => {
    const assistant = await assistantTurn("anthropic-messages", "anthropic", "claude-opus-4-1");
    const future: Message = { ...assistant, replayState: { ...assistant.replayState!, version: 99 } };
    const body = await nextBody("anthropic-messages", "anthropic", "claude-opus-4-1", followUp(future));
    assert.equal(body.messages[1].content[0].type, "text");
  });
});
