import type { Tool } from "../tools/types";
import { Emitter, type Unsubscribe } from "../util/emitter";
import {
  inputIdsOf,
  launchFingerprint,
  launchLine,
  substitute,
  type McpConfigProblem,
  type McpInput,
  type McpServerConfig,
  type McpServerEntry,
  type McpSource,
  type ParsedMcpConfig,
} from "./config";
import { DEFAULT_BACKOFF, McpConnection, type BackoffPolicy, type McpLog, type McpServerStatus } from "./connection";

/** What the consent prompt shows: the server, where it is configured, and exactly what it runs or connects to. */
export interface McpConsentRequest {
  server: string;
  source: McpSource;
  /** The command line or URL as configured (inputs not substituted: no secret is shown). */
  launch: string;
  /** Changes whenever what the server runs changes: consent is remembered per fingerprint. */
  fingerprint: string;
}

/** What a host gives the MCP client: where servers run, where their logs go, how the user is asked. */
export interface McpHostOptions {
  /** The workspace folder: servers' default cwd and `${workspaceFolder}`. */
  root: string;
  env?: NodeJS.ProcessEnv;
  log: McpLog;
  /**
   * Whether a server from an untrusted source (a `.vscode/mcp.json` that came with the
   * folder) may start. The host remembers the answer per folder and fingerprint.
   */
  consent(request: McpConsentRequest): Promise<boolean>;
  /** An input's value (SecretStorage, a prompt, the environment); undefined when the user gave none. */
  input(input: McpInput, server: string, source: McpSource): Promise<string | undefined>;
  /** Why no server may start (Restricted Mode), or undefined. */
  restricted?: () => string | undefined;
  /** Tools (or whole servers) the user allowed always for this folder. */
  alwaysAllowed?: (server: string, tool: string) => boolean;
  /** Persists the approval card's "always allow" for a tool or its server, in this folder. */
  allowAlways?: (server: string, tool: string, what: "tool" | "server") => Promise<void>;
  /** How long a server may take to connect and list its tools (default 30 s); a function is read at each start. */
  startTimeoutMs?: number | (() => number);
  /**
   * How long a run waits for servers still connecting (after consent and inputs) before
   * it goes on without them; they keep starting and join the next run. Default 3 s; a
   * function is read at each run (the extension's setting).
   */
  firstRunWaitMs?: number | (() => number);
  callTimeoutMs?: number;
  backoff?: Partial<BackoffPolicy>;
  now?: () => number;
}

export interface McpTools {
  tools: readonly Tool[];
  /** What the chat should say once: a server that could not start, a tool disabled for its schema. */
  notices: readonly string[];
}

class ConsentDeclined extends Error {}

/**
 * The MCP servers of one workspace folder: their configuration, lazy start at the first
 * run that needs tools, consent for untrusted ones, inputs, and the tools they offer.
 */
export class McpManager {
  private readonly connections = new Map<string, McpConnection>();
  private problems: McpConfigProblem[] = [];
  /** Fingerprints the user declined in this window: not asked again until they start the server themselves. */
  private readonly declined = new Set<string>();
  private readonly emitter = new Emitter<{ change: [] }>();
  private closed = false;
  /** Servers a run stopped waiting for, with what the next run is told when their start settles. */
  private readonly joining = new Map<McpConnection, Promise<string[]>>();
  /** Resolved when a server's consent and inputs are settled: a run's wait counts from then. */
  private readonly resolvedWaiters = new Map<string, () => void>();

  constructor(private readonly host: McpHostOptions) {}

  /** Takes a new configuration: unchanged servers keep running, changed or removed ones are stopped. */
  setConfig(config: ParsedMcpConfig): void {
    this.problems = [...config.problems];
    const next = new Map(config.servers.map((s) => [s.name, s]));
    for (const [name, conn] of this.connections) {
      const entry = next.get(name);
      if (
        entry &&
        launchFingerprint(entry) === launchFingerprint(conn.entry) &&
        entry.source.kind === conn.entry.source.kind
      )
        continue;
      void conn.stop();
      this.connections.delete(name);
    }
    for (const entry of config.servers) {
      if (this.connections.has(entry.name)) continue;
      this.connections.set(entry.name, this.connection(entry));
    }
    this.changed();
  }

  onDidChange(listener: () => void): Unsubscribe {
    return this.emitter.on("change", listener);
  }

  status(): McpServerStatus[] {
    return [...this.connections.values()].map((c) => c.status(launchLine(c.entry.config)));
  }

  configProblems(): readonly McpConfigProblem[] {
    return this.problems;
  }

  /**
   * The tools of every server, starting (in parallel) those never started: the first run
   * that needs tools pays for the start, later runs do not. Restricted Mode starts none.
   */
  async tools(): Promise<McpTools> {
    if (this.closed || this.host.restricted?.() !== undefined) return { tools: [], notices: [] };
    const notices: string[] = [];
    for (const [c, told] of this.joining) {
      // Its start has settled (or is settling): say once what became of it.
      if (c.current === "starting") continue;
      this.joining.delete(c);
      notices.push(...(await told));
    }
    const pending = [...this.connections.values()].filter(
      (c) => c.current === "stopped" && !c.stoppedByUser && !this.isHeld(c),
    );
    const waitMs = current(this.host.firstRunWaitMs) ?? 3_000;
    await Promise.all(
      pending.map(async (c) => {
        // Consent and inputs wait for the user; only the connection itself is bounded.
        const resolved = new Promise<void>((ok) => this.resolvedWaiters.set(c.name, ok));
        const started = c.start().then(
          () => this.startNotices(c),
          (err: unknown) => this.failureNotice(err),
        );
        let timer: ReturnType<typeof setTimeout> | undefined;
        const waited = resolved.then(
          () => new Promise<"waited">((ok) => (timer = setTimeout(() => ok("waited"), waitMs))),
        );
        const first = await Promise.race([started, waited]);
        clearTimeout(timer);
        this.resolvedWaiters.delete(c.name);
        if (first !== "waited") return notices.push(...first);
        notices.push(
          `MCP server "${c.name}" is still starting after ${seconds(waitMs)}: this run goes on without its tools; they join the next run once it is ready.`,
        );
        this.joining.set(
          c,
          started.then((later) => [
            ...(c.current === "running"
              ? [`MCP server "${c.name}" is ready: its ${plural(c.tools().length, "tool")} join from this run.`]
              : []),
            ...later,
          ]),
        );
      }),
    );
    return { tools: [...this.connections.values()].flatMap((c) => c.tools()), notices };
  }

  private startNotices(c: McpConnection): string[] {
    return c.disabledTools.map((d) => `MCP server "${c.name}": tool "${d.tool}" is disabled because ${d.reason}.`);
  }

  private failureNotice(err: unknown): string[] {
    if (err instanceof ConsentDeclined || causeOf(err) instanceof ConsentDeclined) return [];
    return [err instanceof Error ? err.message : String(err)];
  }

  /** The user's Start (the MCP Servers command): asks for consent again if it was declined. */
  async start(name: string): Promise<void> {
    const conn = this.require(name);
    this.refuseRestricted();
    this.declined.delete(launchFingerprint(conn.entry));
    await conn.start({ user: true });
  }

  async stop(name: string): Promise<void> {
    await this.require(name).stop();
  }

  async restart(name: string): Promise<void> {
    const conn = this.require(name);
    this.refuseRestricted();
    this.declined.delete(launchFingerprint(conn.entry));
    await conn.restart();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.connections.values()].map((c) => c.stop()));
  }

  /**
   * Refused before the connection is touched: a Start in Restricted Mode must not leave the
   * server "failed", which no run retries, so the first run after the user trusts the folder starts it.
   */
  private refuseRestricted(): void {
    const why = this.host.restricted?.();
    if (why !== undefined) throw new Error(`the workspace is in Restricted Mode (${why})`);
  }

  private isHeld(c: McpConnection): boolean {
    return this.declined.has(launchFingerprint(c.entry));
  }

  private require(name: string): McpConnection {
    const conn = this.connections.get(name);
    if (!conn) throw new Error(`no MCP server named "${name}" is configured`);
    return conn;
  }

  private connection(entry: McpServerEntry): McpConnection {
    const { host } = this;
    return new McpConnection(entry, {
      root: host.root,
      resolve: (e) => this.resolve(e),
      log: host.log,
      startTimeoutMs: () => current(host.startTimeoutMs) ?? 30_000,
      callTimeoutMs: host.callTimeoutMs ?? 120_000,
      backoff: { ...DEFAULT_BACKOFF, ...host.backoff },
      now: host.now ?? Date.now,
      onChange: () => this.changed(),
      alwaysAllowed: (server, tool) => host.alwaysAllowed?.(server, tool) ?? false,
      ...(host.allowAlways ? { allowAlways: host.allowAlways } : {}),
    });
  }

  /** Restricted Mode, then consent for an untrusted source, then the inputs: what stands between a config and a process. */
  private async resolve(entry: McpServerEntry): Promise<McpServerConfig> {
    try {
      return await this.resolveConfig(entry);
    } finally {
      this.resolvedWaiters.get(entry.name)?.();
    }
  }

  private async resolveConfig(entry: McpServerEntry): Promise<McpServerConfig> {
    const why = this.host.restricted?.();
    if (why !== undefined) throw new Error(`the workspace is in Restricted Mode (${why})`);
    if (entry.source.kind === "workspace") {
      const fingerprint = launchFingerprint(entry);
      if (this.declined.has(fingerprint)) throw new ConsentDeclined("the user did not allow this server to start");
      const ok = await this.host.consent({
        server: entry.name,
        source: entry.source,
        launch: launchLine(entry.config),
        fingerprint,
      });
      if (!ok) {
        this.declined.add(fingerprint);
        throw new ConsentDeclined("the user did not allow this server to start");
      }
    }
    const inputs = new Map<string, string>();
    for (const id of inputIdsOf(entry.config)) {
      const declared = entry.inputs.find((i) => i.id === id);
      if (!declared) throw new Error(`uses \${input:${id}} but ${entry.source.label} declares no input "${id}"`);
      const value = await this.host.input(declared, entry.name, entry.source);
      if (value === undefined) throw new Error(`no value was given for the input "${id}"`);
      inputs.set(id, value);
    }
    return substitute(entry.config, { workspaceFolder: this.host.root, env: this.host.env ?? process.env, inputs });
  }

  private changed(): void {
    this.emitter.emit("change");
  }
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

function causeOf(err: unknown): unknown {
  return err instanceof Error ? err.cause : undefined;
}

/** A host option given as a value or as a function read each time (the extension's settings). */
function current(option: number | (() => number) | undefined): number | undefined {
  return typeof option === "function" ? option() : option;
}
