import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import * as wire from "./wire";

export { wire };

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or the raw text when it is not JSON, or undefined when empty. */
  body: any;
  /** Resolves when the client side of this request's connection went away or the response ended. */
  closed: Promise<void>;
  /** True once the client closed the connection before the response ended (e.g. an abort). */
  clientAborted: boolean;
}

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** Raw SSE frames, written in order (each usually ends with a blank line). */
  sse?: string[];
  json?: unknown;
  /** Destroy the socket after this many frames have been written (a cut stream). */
  cutAfter?: number;
  /** Stop writing after this many frames and keep the connection open until the client leaves. */
  stallAfter?: number;
  /** Before writing frame `frame`, wait until `until` settles (or the client leaves): a stream the test releases. */
  pauseAt?: { frame: number; until: Promise<unknown> };
  /** Pause before the response starts. */
  delayMs?: number;
  /** Pause between frames. */
  frameDelayMs?: number;
}

export type ProviderHandler = (req: {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}) => ScriptedReply | Promise<ScriptedReply>;

export interface ProviderServer {
  /** `http://127.0.0.1:PORT/v1` — what the openai SDK expects. */
  baseURL: string;
  /** `http://127.0.0.1:PORT` — what the anthropic SDK expects (it appends /v1/messages). */
  anthropicBaseURL: string;
  origin: string;
  requests: RecordedRequest[];
  /**
   * The first request (already recorded or still to come) that `match` accepts; rejects after `timeoutMs`.
   * A UI can show a run as started (Stop) before its HTTP request reaches the server.
   */
  arrived(match: (r: RecordedRequest) => boolean, timeoutMs: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

const MAX_DELAY_MS = 10_000;

/**
 * A loopback HTTP server that replays scripted provider responses and records every
 * request. Bounded: every wait is capped, a stall ends when the client leaves, and
 * `close()` destroys all sockets.
 */
export async function startProviderServer(handler: ProviderHandler): Promise<ProviderServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const waiters = new Set<(r: RecordedRequest) => void>();
  let closing = false;

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text === "" ? undefined : text;
    try {
      if (text) body = JSON.parse(text);
    } catch {
      /* keep raw text */
    }
    let markClosed!: () => void;
    const record: RecordedRequest = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      body,
      closed: new Promise<void>((resolve) => (markClosed = resolve)),
      clientAborted: false,
    };
    res.on("close", () => {
      if (!res.writableFinished) record.clientAborted = true;
      markClosed();
    });
    requests.push(record);
    for (const waiter of [...waiters]) waiter(record);

    let reply: ScriptedReply;
    try {
      reply = await handler({ method: record.method, path: record.path, headers: record.headers, body });
    } catch (error) {
      reply = { status: 500, json: { error: { message: `test handler failed: ${(error as Error).message}` } } };
    }
    await respond(res, reply, record.closed, () => closing);
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("provider server has no port");
  const origin = `http://127.0.0.1:${address.port}`;

  return {
    baseURL: `${origin}/v1`,
    anthropicBaseURL: origin,
    origin,
    requests,
    arrived(match, timeoutMs) {
      const seen = requests.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = (r: RecordedRequest) => {
          if (!match(r)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          resolve(r);
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`no matching provider request within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    async close() {
      closing = true;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function sleep(ms: number, closed: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(ms, MAX_DELAY_MS)))),
    closed,
  ]).finally(() => clearTimeout(timer));
}

async function respond(
  res: ServerResponse,
  reply: ScriptedReply,
  closed: Promise<void>,
  closing: () => boolean,
): Promise<void> {
  if (reply.delayMs) await sleep(reply.delayMs, closed);
  if (res.destroyed || closing()) return;
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.sse) {
    headers["content-type"] ??= "text/event-stream";
    headers["cache-control"] ??= "no-cache";
    res.writeHead(reply.status ?? 200, headers);
    res.flushHeaders();
    for (let i = 0; i < reply.sse.length; i++) {
      if (reply.cutAfter === i) return void res.socket?.destroy();
      if (reply.stallAfter === i) return closed; // hold until the client goes away (or close())
      if (reply.pauseAt?.frame === i) await Promise.race([reply.pauseAt.until.catch(() => {}), closed]);
      if (res.destroyed || closing()) return;
      await new Promise<void>((resolve) => res.write(reply.sse![i]!, () => resolve()));
      if (reply.frameDelayMs) await sleep(reply.frameDelayMs, closed);
    }
    if (reply.cutAfter === reply.sse.length) return void res.socket?.destroy();
    if (reply.stallAfter === reply.sse.length) return closed;
    res.end();
    return;
  }
  const payload = reply.json === undefined ? "" : JSON.stringify(reply.json);
  if (reply.json !== undefined) headers["content-type"] ??= "application/json";
  res.writeHead(reply.status ?? 200, headers);
  res.end(payload);
}
