import { z } from "zod";

/**
 * The chat's connect form (issue 19 item 3): what the webview sends to list a server's
 * models and to connect, and what it gets back. The API key crosses webview → host once,
 * in `connect`, and is never sent back: results name the field that failed, not values.
 */

export const ConnectKind = z.enum(["openai-chat", "openai-responses", "anthropic-messages"]);
export type ConnectKind = z.infer<typeof ConnectKind>;

/** Per kind: its label, the Base URL the form starts with, and a local-server example. */
export const CONNECT_KINDS: Record<ConnectKind, { label: string; baseURL: string; example: string }> = {
  "openai-chat": {
    label: "OpenAI-compatible",
    baseURL: "http://127.0.0.1:11434/v1",
    example:
      "Ollama http://127.0.0.1:11434/v1 · LM Studio http://127.0.0.1:1234/v1 · llama.cpp http://127.0.0.1:8080/v1 · https://api.openai.com/v1",
  },
  "openai-responses": {
    label: "OpenAI Responses",
    baseURL: "https://api.openai.com/v1",
    example: "https://api.openai.com/v1 · a local Responses server, e.g. http://127.0.0.1:8000/v1",
  },
  "anthropic-messages": {
    label: "Anthropic",
    baseURL: "https://api.anthropic.com",
    example: "https://api.anthropic.com · a local proxy, e.g. http://127.0.0.1:4000",
  },
};

/** An http(s) URL with a host; the message says what to type. */
const BaseURL = z
  .string()
  .trim()
  .min(1, "Base URL is empty")
  .max(2048)
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
    } catch {
      return false;
    }
  }, "Base URL must be an http:// or https:// address, e.g. http://127.0.0.1:11434/v1");

export const ListModelsParams = z.object({ kind: ConnectKind, baseURL: BaseURL }).strict();
export type ListModelsParams = z.infer<typeof ListModelsParams>;
/** The models the server lists; `problem` says why there are none (unreachable, HTTP status, needs a key). */
export const ListModelsResult = z.object({
  models: z.array(z.string().min(1).max(500)).max(5000),
  problem: z.string().optional(),
});
export type ListModelsResult = z.infer<typeof ListModelsResult>;

export const ConnectParams = z
  .object({
    kind: ConnectKind,
    baseURL: BaseURL,
    model: z.string().trim().min(1, "Model is empty").max(500),
    /** Empty for a local server that takes none. */
    apiKey: z.string().max(10_000).optional(),
  })
  .strict();
export type ConnectParams = z.infer<typeof ConnectParams>;

export const ConnectField = z.enum(["baseURL", "model", "apiKey"]);
export type ConnectField = z.infer<typeof ConnectField>;

export const ConnectResult = z.discriminatedUnion("ok", [
  /** Saved as the profile `profileId` and selected: the chat is ready. */
  z.object({ ok: z.literal(true), profileId: z.string().min(1), model: z.string().min(1) }),
  /** Nothing was saved; `message` names what failed (host:port, HTTP status, the key) and `field` the input to fix. */
  z.object({ ok: z.literal(false), message: z.string(), field: ConnectField.optional() }),
]);
export type ConnectResult = z.infer<typeof ConnectResult>;
