import { ModelClients } from "./model-clients";
import { LlmError, type Protocol, type ProviderProfile } from "./types";

/**
 * Tests a provider before it is saved (the chat's connect form): lists the server's
 * models, and when that does not show the model is served, makes one minimal call
 * through the real adapter. A failure names what failed — the server's host:port, the
 * HTTP status, the key — and the form field to fix. Never puts the key in a message.
 */

export type ProbeField = "baseURL" | "model" | "apiKey";
export interface ProbeFailure {
  field: ProbeField;
  message: string;
}

export interface ProbeTarget {
  protocol: Protocol;
  baseURL: string;
  apiKey?: string;
  headers?: Record<string, string>;
}

export interface ProbeOptions {
  fetch?: typeof fetch;
  /** Bound of the models request (default 5 s). */
  listTimeoutMs?: number;
  /** Bound of the minimal call (default 30 s: a local server may load the model first). */
  callTimeoutMs?: number;
}

/** `host:port` of a base URL, the port spelled out (what a user checks the server by). */
export function hostPort(baseURL: string): string {
  const url = new URL(baseURL);
  return `${url.hostname}:${url.port || (url.protocol === "https:" ? "443" : "80")}`;
}

const KIND_NAMES: Record<Protocol, string> = {
  "openai-chat": "OpenAI-compatible",
  "openai-responses": "OpenAI Responses",
  "anthropic-messages": "Anthropic",
};

function headersFor(target: ProbeTarget): Record<string, string> {
  const anthropic = target.protocol === "anthropic-messages";
  const headers: Record<string, string> = { ...target.headers };
  // "not-needed" is the placeholder keyless local servers get: not a key to send.
  if (target.apiKey && target.apiKey !== "not-needed") {
    if (anthropic) headers["x-api-key"] = target.apiKey;
    else headers.authorization = `Bearer ${target.apiKey}`;
  }
  if (anthropic) headers["anthropic-version"] = "2023-06-01";
  return headers;
}

/** Why a request never got an HTTP answer, in a user's words. */
function unreachable(target: ProbeTarget, error: unknown): ProbeFailure {
  const where = hostPort(target.baseURL);
  const cause = causeCode(error);
  const name = (error as { name?: string })?.name;
  const why =
    name === "TimeoutError" || name === "AbortError"
      ? "no answer in time"
      : cause === "ECONNREFUSED"
        ? "connection refused: is the server running?"
        : cause === "ENOTFOUND" || cause === "EAI_AGAIN"
          ? "no such host"
          : cause === "ECONNRESET"
            ? "the connection was reset"
            : cause
              ? cause
              : error instanceof Error
                ? error.message
                : String(error);
  return { field: "baseURL", message: `Cannot reach ${where} (${why}). Check the Base URL.` };
}

/** The system error code (ECONNREFUSED…) somewhere down an error's cause chain (fetch and the SDKs wrap it). */
function causeCode(error: unknown): string | undefined {
  for (
    let e = error as { code?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === "string" && /^E[A-Z_]+$/.test(e.code)) return e.code;
  }
  return undefined;
}

function authFailure(target: ProbeTarget, status: number, detail: string): ProbeFailure {
  const where = hostPort(target.baseURL);
  const what = target.apiKey ? "refused the API key" : "needs an API key";
  return { field: "apiKey", message: `${where} ${what} (HTTP ${status}${detail ? `: ${detail}` : ""}).` };
}

/** The provider's own error text from a JSON body, short. */
function providerText(body: unknown): string {
  const b = body as { error?: { message?: unknown } | string; message?: unknown } | undefined;
  const text =
    typeof b?.error === "string"
      ? b.error
      : typeof b?.error?.message === "string"
        ? b.error.message
        : typeof b?.message === "string"
          ? b.message
          : "";
  return text.slice(0, 200);
}

export interface ListedModels {
  models: string[];
  /** Why none are listed (unreachable, an HTTP status, the key); undefined when the server answered. */
  failure?: ProbeFailure;
  /** The models endpoint's HTTP status, when it answered. */
  status?: number;
}

/**
 * The models the server lists: the OpenAI-style `GET <base>/models` (OpenAI, vLLM, LM
 * Studio, llama.cpp, OpenRouter, DeepSeek, Ollama's /v1), Anthropic's `/v1/models`,
 * else Ollama's native `/api/tags`.
 */
export async function probeModels(target: ProbeTarget, options: ProbeOptions = {}): Promise<ListedModels> {
  const get = options.fetch ?? fetch;
  const anthropic = target.protocol === "anthropic-messages";
  const base = target.baseURL.replace(/\/+$/, "");
  const headers = headersFor(target);
  const signal = AbortSignal.timeout(options.listTimeoutMs ?? 5000);
  const attempt = async (url: string, pick: (body: any) => unknown[]): Promise<ListedModels> => {
    let response: Response;
    try {
      response = await get(url, { headers, signal });
    } catch (error) {
      return { models: [], failure: unreachable(target, error) };
    }
    const body: unknown = await response.json().catch(() => undefined);
    if (response.status === 401 || response.status === 403)
      return { models: [], status: response.status, failure: authFailure(target, response.status, providerText(body)) };
    if (!response.ok) {
      const detail = providerText(body);
      return {
        models: [],
        status: response.status,
        failure: {
          field: "baseURL",
          message: `${hostPort(target.baseURL)} lists no models at ${new URL(url).pathname} (HTTP ${response.status}${detail ? `: ${detail}` : ""}).`,
        },
      };
    }
    const ids = pick(body).filter((id): id is string => typeof id === "string" && id.length > 0);
    return { models: [...new Set(ids)].sort(), status: response.status };
  };
  // The Anthropic SDK appends /v1 to its base URL; OpenAI-style bases include it.
  const listed = await attempt(anthropic && !base.endsWith("/v1") ? `${base}/v1/models` : `${base}/models`, (body) =>
    Array.isArray(body?.data) ? body.data.map((m: any) => m?.id) : [],
  );
  if (listed.models.length > 0 || listed.failure?.field === "apiKey" || (listed.failure && listed.status === undefined))
    return listed;
  // Ollama's native list lives at the server root, beside its /v1.
  const tags = await attempt(`${base.replace(/\/v1$/, "")}/api/tags`, (body) =>
    Array.isArray(body?.models) ? body.models.map((m: any) => m?.name ?? m?.model) : [],
  );
  return tags.models.length > 0 ? tags : listed;
}

export type ConnectionCheck = { ok: true; models: string[] } | ({ ok: false } & ProbeFailure);

/**
 * Whether `model` at `target` answers. The models list decides when it names the model;
 * else (not listed, no list) one minimal call does, unless `allowCall` is false
 * (Restricted Mode makes no model call).
 */
export async function checkConnection(
  target: ProbeTarget,
  model: string,
  options: ProbeOptions & { allowCall?: boolean } = {},
): Promise<ConnectionCheck> {
  const listed = await probeModels(target, options);
  if (listed.failure && (listed.failure.field === "apiKey" || listed.status === undefined))
    return { ok: false, ...listed.failure };
  if (listed.models.includes(model)) return { ok: true, models: listed.models };
  if (options.allowCall === false) {
    return {
      ok: false,
      field: "model",
      message: `${hostPort(target.baseURL)} does not list ${model}, and Restricted Mode makes no model call to try it.`,
    };
  }
  const failure = await minimalCall(target, model, options);
  if (!failure) return { ok: true, models: listed.models };
  if (failure.field === "model" && listed.models.length > 0) {
    const shown = listed.models.slice(0, 8).join(", ") + (listed.models.length > 8 ? ", …" : "");
    failure.message += ` The server lists: ${shown}.`;
  }
  return { ok: false, ...failure };
}

/** One tiny request through the protocol's real adapter; undefined when it was answered. */
async function minimalCall(
  target: ProbeTarget,
  model: string,
  options: ProbeOptions,
): Promise<ProbeFailure | undefined> {
  // A keyless local server: the SDKs want some key, and the server ignores it.
  const profile: ProviderProfile = {
    id: "connect-test",
    protocol: target.protocol,
    baseURL: target.baseURL,
    apiKey: target.apiKey || "not-needed",
    ...(target.headers ? { headers: target.headers } : {}),
  };
  const clients = new ModelClients({ profiles: [profile], ...(options.fetch ? { fetch: options.fetch } : {}) });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("timeout")), options.callTimeoutMs ?? 30_000);
  try {
    const stream = clients.stream({
      provider: profile.id,
      model,
      messages: [{ role: "user", content: [{ type: "text", text: "Reply with OK." }] }],
      maxTokens: 16,
      signal: controller.signal,
    });
    // The first chunk proves the request was accepted; the rest is not needed.
    for await (const _chunk of stream) break;
    return undefined;
  } catch (error) {
    if (controller.signal.aborted)
      return {
        field: "baseURL",
        message: `${hostPort(target.baseURL)} did not answer a test request for ${model} within ${Math.round((options.callTimeoutMs ?? 30_000) / 1000)} s.`,
      };
    return callFailure(target, model, error);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

function callFailure(target: ProbeTarget, model: string, error: unknown): ProbeFailure {
  const where = hostPort(target.baseURL);
  if (!(error instanceof LlmError))
    return { field: "baseURL", message: `${where}: ${error instanceof Error ? error.message : String(error)}` };
  const status = error.details.status;
  const detail = (error.details.providerMessage ?? "").slice(0, 200);
  if (error.kind === "auth") return authFailure(target, status ?? 401, detail);
  if (error.details.code === "connection" || error.details.code === "timeout")
    return unreachable(
      target,
      error.details.code === "timeout"
        ? Object.assign(new Error("timeout"), { name: "TimeoutError" })
        : (error.details.cause ?? error),
    );
  if (status === 404 || /model/i.test(detail)) {
    return {
      field: "model",
      message: `${where} does not serve ${model} (HTTP ${status ?? "error"}${detail ? `: ${detail}` : ""}).`,
    };
  }
  const kind = KIND_NAMES[target.protocol];
  return {
    field: "baseURL",
    message: `${where} refused a test request for ${model} (HTTP ${status ?? "error"}${detail ? `: ${detail}` : ""}). Is it an ${kind} server?`,
  };
}
