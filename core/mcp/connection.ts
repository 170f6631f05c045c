// Over 350 lines: one MCP server connection (transports, backoff, tool list, calls) as one state machine.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { textOutput, type Tool, type ToolContext, type ToolOutput } from "../tools/types";
import type { McpServerConfig, McpServerEntry } from "./config";
import { mcpToolName } from "./names";
import { settleResponsesAfterNotifications } from "./ordered-messages";
import { MCP_RESULT_CAP, toToolOutput, type McpCallResult } from "./results";
import { mcpSdk, type McpSdk } from "./load-sdk";

export type McpServerState = "stopped" | "starting" | "running" | "restarting" | "failed";

/** Where a server's stderr and the client's own notes go ("Downcity MCP" in VS Code, stderr in the CLI). */
export interface McpLog {
  stderr(server: string, line: string): void;
  info(server: string, message: string): void;
}

export interface BackoffPolicy {
  /** First restart delay; each further one doubles, up to `maxMs`. */
  baseMs: number;
  maxMs: number;
  /** Restarts in a row before the server is left failed. */
  maxRestarts: number;
  /** A connection up this long before it crashed starts the count again. */
  stableMs: number;
}
export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 1_000, maxMs: 30_000, maxRestarts: 5, stableMs: 60_000 };

export interface McpConnectionDeps {
  root: string;
  /** The config with `${input:…}` and the other variables substituted (the host may ask for an input). */
  resolve(entry: McpServerEntry): Promise<McpServerConfig>;
  log: McpLog;
  /** Read at each start: the host's setting may change while the connection lives. */
  startTimeoutMs: () => number;
  callTimeoutMs: number;
  backoff: BackoffPolicy;
  now: () => number;
  /** State or tools changed. */
  onChange(): void;
  alwaysAllowed(server: string, tool: string): boolean;
  /** Persists "always allow" for the tool or its whole server (the card's button); absent where nothing persists. */
  allowAlways?: (server: string, tool: string, what: "tool" | "server") => Promise<void>;
}

export interface DisabledTool {
  tool: string;
  reason: string;
}

export interface McpServerStatus {
  name: string;
  state: McpServerState;
  source: string;
  /** The command line or URL, as configured. */
  launch: string;
  /** Model-facing names of the tools offered. */
  tools: string[];
  disabledTools: DisabledTool[];
  lastError?: string;
  /** "streamable-http", "sse" or "stdio" once connected. */
  transport?: string;
  restarts: number;
}

/** `tools/list` read loosely: one tool with a bad schema must not make the SDK reject the whole list. */
const LooseToolList = z.looseObject({
  tools: z.array(
    z.looseObject({
      name: z.string().min(1),
      title: z.string().optional(),
      description: z.string().optional(),
      inputSchema: z.unknown(),
    }),
  ),
  nextCursor: z.string().optional(),
});

const STDERR_TAIL = 12;
const CLIENT_INFO = { name: "downcity", version: "1" };

/**
 * One configured MCP server: connects (stdio, Streamable HTTP or legacy SSE), lists and
 * adapts its tools, refreshes them on `tools/list_changed`, restarts it with backoff when
 * it dies, and runs its tool calls with cancellation, timeout and progress.
 */
export class McpConnection {
  private state: McpServerState = "stopped";
  private client: Client | undefined;
  /** The client of a start still connecting: a stop closes it, else a hanging server's process outlives the stop. */
  private connecting: Client | undefined;
  private transportKind: string | undefined;
  private starting: Promise<void> | undefined;
  private adapted: Tool[] = [];
  private byName = new Map<string, { key: string; tool: Tool }>();
  private disabled: DisabledTool[] = [];
  private lastError: string | undefined;
  private readonly stderrTail: string[] = [];
  private restarts = 0;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  /** Bumped by every start and stop: callbacks of an older client change nothing. */
  private generation = 0;
  private connectedAt = 0;
  /** Stopped by the user (or closed): calls do not start it again. */
  private held = false;

  constructor(
    readonly entry: McpServerEntry,
    private readonly deps: McpConnectionDeps,
  ) {}

  get name(): string {
    return this.entry.name;
  }

  status(launch: string): McpServerStatus {
    return {
      name: this.name,
      state: this.state,
      source: this.entry.source.label,
      launch,
      tools: this.adapted.map((t) => t.name),
      disabledTools: [...this.disabled],
      ...(this.lastError ? { lastError: this.lastError } : {}),
      ...(this.transportKind ? { transport: this.transportKind } : {}),
      restarts: this.restarts,
    };
  }

  tools(): readonly Tool[] {
    return this.state === "running" ? this.adapted : [];
  }

  /** Stopped by the user: runs do not start it again until the user does. */
  get stoppedByUser(): boolean {
    return this.held;
  }

  get current(): McpServerState {
    return this.state;
  }

  get disabledTools(): readonly DisabledTool[] {
    return this.disabled;
  }

  /** Connects and lists tools; a second call while starting waits for the same start. Rejects with the reason it could not. */
  start(options: { user?: boolean } = {}): Promise<void> {
    if (options.user) {
      this.held = false;
      this.restarts = 0;
    }
    if (this.state === "running") return Promise.resolve();
    if (this.starting) return this.starting;
    this.clearRestart();
    const generation = ++this.generation;
    this.setState("starting");
    this.starting = this.connect(generation).finally(() => {
      if (this.generation === generation) this.starting = undefined;
    });
    return this.starting;
  }

  async stop(options: { hold?: boolean } = { hold: true }): Promise<void> {
    if (options.hold) this.held = true;
    this.clearRestart();
    this.generation++;
    this.starting = undefined;
    const clients = [this.client, this.connecting];
    this.client = undefined;
    this.connecting = undefined;
    this.adapted = [];
    this.setState("stopped");
    await Promise.all(clients.map((c) => c?.close().catch(() => undefined)));
  }

  async restart(): Promise<void> {
    await this.stop({ hold: false });
    await this.start({ user: true });
  }

  private async connect(generation: number): Promise<void> {
    let config: McpServerConfig;
    try {
      config = await this.deps.resolve(this.entry);
    } catch (err) {
      return this.failStart(generation, err);
    }
    if (generation !== this.generation) return;
    try {
      const sdk = await mcpSdk();
      const { client, kind } = await this.open(config, sdk);
      if (generation !== this.generation) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      this.transportKind = kind;
      client.onclose = () => this.closed(generation);
      client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
        void this.refresh(generation);
      });
      await this.listTools(client, generation, sdk);
      if (generation !== this.generation) return;
      this.connectedAt = this.deps.now();
      this.lastError = undefined;
      this.setState("running");
      this.deps.log.info(
        this.name,
        `started (${kind}): ${this.adapted.length} tool${this.adapted.length === 1 ? "" : "s"}`,
      );
    } catch (err) {
      const client = this.client;
      this.client = undefined;
      await client?.close().catch(() => undefined);
      return this.failStart(generation, err);
    }
  }

  private failStart(generation: number, err: unknown): never | void {
    if (generation !== this.generation) return;
    this.lastError = `could not start: ${errorText(err)}${this.tail()}`;
    this.deps.log.info(this.name, this.lastError);
    this.setState("failed");
    throw new Error(`MCP server "${this.name}" ${this.lastError}`, { cause: err });
  }

  /** A client over the configured transport: Streamable HTTP first for a URL, legacy SSE when that fails (or when `type` is "sse"). */
  private async open(config: McpServerConfig, sdk: McpSdk): Promise<{ client: Client; kind: string }> {
    const { StdioClientTransport, StreamableHTTPClientTransport, SSEClientTransport } = sdk;
    const timeout = this.deps.startTimeoutMs();
    if ("command" in config) {
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args ?? [],
        env: environment(config, this.deps.root, sdk.getDefaultEnvironment()),
        cwd: config.cwd ? resolvePath(this.deps.root, config.cwd) : this.deps.root,
        stderr: "pipe",
      });
      const stderr = transport.stderr;
      if (stderr) {
        const lines = createInterface({ input: stderr as unknown as NodeJS.ReadableStream });
        lines.on("line", (line) => {
          this.stderrTail.push(line);
          if (this.stderrTail.length > STDERR_TAIL) this.stderrTail.shift();
          this.deps.log.stderr(this.name, line);
        });
      }
      return { client: await this.connectWith(transport, timeout, sdk), kind: "stdio" };
    }
    const url = new URL(config.url);
    const requestInit = { headers: config.headers ?? {} };
    if (config.type !== "sse") {
      try {
        return {
          client: await this.connectWith(new StreamableHTTPClientTransport(url, { requestInit }), timeout, sdk),
          kind: "streamable-http",
        };
      } catch (err) {
        this.deps.log.info(this.name, `Streamable HTTP failed (${errorText(err)}); trying the legacy SSE transport`);
        try {
          return {
            client: await this.connectWith(new SSEClientTransport(url, { requestInit }), timeout, sdk),
            kind: "sse",
          };
        } catch (sseErr) {
          throw new Error(`Streamable HTTP: ${errorText(err)}; SSE: ${errorText(sseErr)}`);
        }
      }
    }
    return { client: await this.connectWith(new SSEClientTransport(url, { requestInit }), timeout, sdk), kind: "sse" };
  }

  private async connectWith(transport: Transport, timeout: number, sdk: McpSdk): Promise<Client> {
    const { Client, McpError, ErrorCode } = sdk;
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    this.connecting = client;
    try {
      await client.connect(transport, { timeout });
      settleResponsesAfterNotifications(transport);
      return client;
    } catch (err) {
      await client.close().catch(() => undefined);
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
        throw new Error(`it did not answer "initialize" within ${Math.round(timeout / 100) / 10} s`, { cause: err });
      throw err;
    } finally {
      if (this.connecting === client) this.connecting = undefined;
    }
  }

  private async listTools(client: Client, generation: number, sdk: McpSdk): Promise<void> {
    const listed: z.infer<typeof LooseToolList>["tools"] = [];
    let cursor: string | undefined;
    do {
      const page = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, LooseToolList, {
        timeout: this.deps.startTimeoutMs(),
      });
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    if (generation !== this.generation) return;
    const adapted: Tool[] = [];
    const disabled: DisabledTool[] = [];
    const names = new Set<string>();
    const byName = new Map<string, { key: string; tool: Tool }>();
    for (const t of listed) {
      const checked = sdk.checkInputSchema(t.inputSchema);
      if (!checked.ok) {
        disabled.push({ tool: t.name, reason: checked.reason });
        this.deps.log.info(this.name, `tool "${t.name}" is disabled: ${checked.reason}`);
        continue;
      }
      const name = mcpToolName(this.name, t.name);
      if (names.has(name)) {
        disabled.push({ tool: t.name, reason: `its name is listed twice` });
        continue;
      }
      names.add(name);
      const description = t.description ?? t.title ?? "";
      // An unchanged tool keeps its object across refreshes: the runtime's registry (and its schema cache) stays valid.
      const key = JSON.stringify([description, checked.schema]);
      const previous = this.byName.get(name);
      adapted.push(
        previous?.key === key
          ? previous.tool
          : this.adapt(t.name, description, name, checked.schema, checked.parameters),
      );
      byName.set(name, { key, tool: adapted[adapted.length - 1]! });
    }
    this.adapted = adapted;
    this.byName = byName;
    this.disabled = disabled;
  }

  private async refresh(generation: number): Promise<void> {
    const client = this.client;
    if (!client || generation !== this.generation) return;
    try {
      await this.listTools(client, generation, await mcpSdk());
      this.deps.log.info(this.name, `tool list changed: ${this.adapted.length} tools`);
      this.deps.onChange();
    } catch (err) {
      this.deps.log.info(this.name, `could not refresh the tool list: ${errorText(err)}`);
    }
  }

  private adapt(
    tool: string,
    description: string,
    name: string,
    schema: Record<string, unknown>,
    parameters: Tool["parameters"],
  ): Tool {
    const server = this.name;
    return {
      name,
      description: `${description.trim() || tool} (tool "${tool}" of the MCP server "${server}")`,
      parameters,
      inputJsonSchema: schema,
      // Approved like a command: an MCP server may do anything its process can.
      kind: "command",
      readOnly: false,
      // The result is capped in toToolOutput, with the cap stated; the registry's cap is a backstop.
      maxResultChars: MCP_RESULT_CAP + 1_000,
      describe: (args) =>
        `call ${tool} on the MCP server "${server}"${Object.keys(args ?? {}).length ? ` with ${clip(JSON.stringify(args), 200)}` : ""}`,
      mcp: {
        server,
        tool,
        alwaysAllowed: () => this.deps.alwaysAllowed(server, tool),
        ...(this.deps.allowAlways
          ? { allowAlways: (what: "tool" | "server") => this.deps.allowAlways!(server, tool, what) }
          : {}),
      },
      execute: (args, ctx) => this.call(tool, args as Record<string, unknown>, ctx),
    };
  }

  /** Runs one call: progress goes to the card, Stop and the timeout cancel it on the server (`notifications/cancelled`). */
  async call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutput> {
    if (this.held)
      return textOutput(
        `The MCP server "${this.name}" is stopped; the user can start it from "Downcity: MCP Servers".`,
        { isError: true },
      );
    if (this.state !== "running") {
      try {
        await this.start();
      } catch (err) {
        return textOutput(errorText(err), { isError: true });
      }
    }
    const client = this.client;
    if (!client) return textOutput(`The MCP server "${this.name}" is not running.`, { isError: true });
    const timeout = this.deps.callTimeoutMs;
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, {
        signal: ctx.signal,
        timeout,
        resetTimeoutOnProgress: true,
        onprogress: (p) => {
          const of = p.total !== undefined ? `${p.progress}/${p.total}` : `${p.progress}`;
          ctx.onUpdate?.({ text: `progress ${of}${p.message ? `: ${p.message}` : ""}\n`, stream: "progress" });
        },
      });
      return toToolOutput(result as McpCallResult);
    } catch (err) {
      const { McpError, ErrorCode } = await mcpSdk();
      if (ctx.signal.aborted)
        return textOutput(`${tool} was cancelled; the MCP server "${this.name}" was told to stop it.`, {
          isError: true,
        });
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        return textOutput(
          `${tool} got no answer from the MCP server "${this.name}" within ${Math.round(timeout / 1000)} s; the call was cancelled on the server.`,
          { isError: true },
        );
      }
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        return textOutput(
          `The MCP server "${this.name}" exited during the call to ${tool}; it will be restarted.${this.tail()}`,
          { isError: true },
        );
      }
      return textOutput(`${tool} failed on the MCP server "${this.name}": ${errorText(err)}`, { isError: true });
    }
  }

  /** The connection closed without a stop: restart with backoff. */
  private closed(generation: number): void {
    if (generation !== this.generation) return;
    this.generation++;
    this.client = undefined;
    this.adapted = [];
    if (this.deps.now() - this.connectedAt >= this.deps.backoff.stableMs) this.restarts = 0;
    this.deps.log.info(this.name, `exited unexpectedly${this.tail()}`);
    this.scheduleRestart("exited unexpectedly");
  }

  /** Waits `baseMs · 2^n` (at most `maxMs`), then starts again; a failed restart backs off further, until `maxRestarts` in a row. */
  private scheduleRestart(why: string): void {
    const { baseMs, maxMs, maxRestarts } = this.deps.backoff;
    if (this.restarts >= maxRestarts) {
      this.lastError = `${why}; not restarted again after ${this.restarts} restarts in a row (start it from "Downcity: MCP Servers")${this.tail()}`;
      this.deps.log.info(this.name, this.lastError);
      this.setState("failed");
      return;
    }
    const delay = Math.min(maxMs, baseMs * 2 ** this.restarts);
    this.restarts++;
    this.lastError = `${why}; restart ${this.restarts} of ${maxRestarts} in ${delay} ms${this.tail()}`;
    this.setState("restarting");
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.state !== "restarting") return;
      this.starting = undefined;
      this.start().catch((err) => {
        if (this.held) return;
        this.scheduleRestart(`restart failed: ${errorText(err)}`);
      });
    }, delay);
  }

  private clearRestart(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
  }

  private setState(state: McpServerState): void {
    this.state = state;
    this.deps.onChange();
  }

  private tail(): string {
    return this.stderrTail.length ? `\nLast stderr:\n${this.stderrTail.slice(-5).join("\n")}` : "";
  }
}

/** The server's environment: the SDK's safe defaults (PATH, HOME…, no secrets of ours), the envFile, then `env` (null removes). */
function environment(
  config: Extract<McpServerConfig, { command: string }>,
  root: string,
  defaults: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = { ...defaults };
  if (config.envFile) Object.assign(env, readEnvFile(resolvePath(root, config.envFile)));
  for (const [k, v] of Object.entries(config.env ?? {})) {
    if (v === null) delete env[k];
    else env[k] = v;
  }
  return env;
}

function readEnvFile(path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)\s*$/.exec(line);
    if (m) out[m[1]!] = m[2]!.replace(/^(['"])(.*)\1$/, "$2");
  }
  return out;
}

const resolvePath = (root: string, p: string) => (isAbsolute(p) ? p : join(root, p));
const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n)}…`);

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
