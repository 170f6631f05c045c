import type { GenerateOptions, Message, StreamChunk } from "../../core/protocol";
import { BlockAssembler, LlmError, ModelClients, type ProviderProfile } from "../../core/llm";
import { type Protocol } from "../../core/llm/types";
import {
  startProviderServer,
  type ProviderHandler,
  type ProviderServer,
  type ScriptedReply,
} from "../support/provider-server";

export const PROTOCOL_MODELS: Record<Protocol, string> = {
  "openai-chat": "gpt-4o",
  "openai-responses": "gpt-5",
  "anthropic-messages": "claude-opus-4-1",
};

/** The profile id used for each protocol in these tests. */
export const PROFILE_IDS: Record<Protocol, string> = {
  "openai-chat": "chat",
  "openai-responses": "responses",
  "anthropic-messages": "anthropic",
};

export function profileFor(
  protocol: Protocol,
  server: ProviderServer,
  extra: Partial<ProviderProfile> = {},
): ProviderProfile {
  return {
    id: PROFILE_IDS[protocol],
    protocol,
    baseURL: protocol === "anthropic-messages" ? server.anthropicBaseURL : server.baseURL,
    apiKey: "test-key",
    ...extra,
  };
}

export interface Harness {
  server: ProviderServer;
  clients: ModelClients;
  close(): Promise<void>;
}

export async function harness(handler: ProviderHandler, extra: Partial<ProviderProfile> = {}): Promise<Harness> {
  const server = await startProviderServer(handler);
  const clients = new ModelClients({
    profiles: (Object.keys(PROFILE_IDS) as Protocol[]).map((p) => profileFor(p, server, extra)),
  });
  return { server, clients, close: () => server.close() };
}

export const userText = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

export function call(protocol: Protocol, extra: Partial<GenerateOptions> = {}): GenerateOptions {
  return { provider: PROFILE_IDS[protocol], model: PROTOCOL_MODELS[protocol], messages: [userText("hi")], ...extra };
}

export async function collect(
  clients: ModelClients,
  options: GenerateOptions,
): Promise<{ chunks: StreamChunk[]; assembler: BlockAssembler }> {
  const chunks: StreamChunk[] = [];
  const assembler = new BlockAssembler();
  for await (const chunk of clients.stream(options)) {
    chunks.push(chunk);
    assembler.push(chunk);
  }
  return { chunks, assembler };
}

/** The LlmError a call ends with, plus the chunks it produced first. Fails if it does not throw. */
export async function collectError(
  clients: ModelClients,
  options: GenerateOptions,
): Promise<{ error: LlmError; chunks: StreamChunk[] }> {
  const chunks: StreamChunk[] = [];
  try {
    for await (const chunk of clients.stream(options)) chunks.push(chunk);
  } catch (error) {
    if (!(error instanceof LlmError)) throw new Error(`expected LlmError, got ${String(error)}`, { cause: error });
    return { error, chunks };
  }
  throw new Error("expected the stream to fail");
}

export const PROTOCOLS_UNDER_TEST: Protocol[] = ["openai-chat", "openai-responses", "anthropic-messages"];

/** Which path each protocol posts to. */
export const PATHS: Record<Protocol, string> = {
  "openai-chat": "/v1/chat/completions",
  "openai-responses": "/v1/responses",
  "anthropic-messages": "/v1/messages",
};

/** A harness whose server routes each protocol's path to `reply(protocol)`; 404 elsewhere. */
export function routedHarness(reply: (protocol: Protocol) => ScriptedReply): Promise<Harness> {
  return harness(({ path }) => {
    const protocol = (Object.keys(PATHS) as Protocol[]).find((p) => PATHS[p] === path);
    if (!protocol) return { status: 404, json: { error: { message: `no route ${path}` } } };
    return reply(protocol);
  });
}
