import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseMcpConfig, type McpSource, type ParsedMcpConfig } from "../../core/mcp/config";
import { McpManager, type McpConsentRequest, type McpHostOptions } from "../../core/mcp/manager";
import { withTimeout } from "../support/with-timeout";

export const REPO = resolve(__dirname, "../..");
export const EVERYTHING = join(REPO, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
export const FILESYSTEM = join(REPO, "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
export const FIXTURE = join(REPO, "test/support/mcp-fixture-server.ts");

/**
 * How long a test waits for anything that starts a server process: a loaded machine may take
 * tens of seconds (a nice 19 loop at load 20 took over 30 s, the product's start timeout, to get
 * the fixture to answer "initialize"; at load 30-35 server-everything took 15-25 s to print that
 * it listens, past the 20 s these waits had). Only a failure waits this long.
 */
export const START_WAIT_MS = 120_000;

export const USER: McpSource = { kind: "user", label: "user settings" };
export const WORKSPACE: McpSource = { kind: "workspace", label: ".vscode/mcp.json" };

/** The fixture server as a stdio config (tsx resolved from the repo, whatever the workspace). */
export const fixtureServer = (env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: ["--import", "tsx", FIXTURE],
  cwd: REPO,
  env,
});
export const everythingServer = () => ({ command: process.execPath, args: [EVERYTHING, "stdio"] });

export function config(
  servers: Record<string, unknown>,
  source: McpSource = USER,
  inputs?: unknown[],
): ParsedMcpConfig {
  return parseMcpConfig({ servers, ...(inputs ? { inputs } : {}) }, source);
}

export interface TestHost {
  manager: McpManager;
  stderr: string[];
  info: string[];
  consents: McpConsentRequest[];
  /** Resolves at the next change event for which `pred` holds. */
  until(pred: () => boolean, what: string, ms?: number): Promise<void>;
  /** Resolves with the first stderr line (seen or to come) matching `re`. */
  stderrLine(re: RegExp, ms?: number): Promise<string>;
}

/** A manager over `root` whose log lines, consent requests and inputs the test sees and answers. */
export function testHost(
  t: { after(fn: () => unknown): void },
  root: string,
  options: Partial<McpHostOptions> & { allow?: boolean; inputs?: Record<string, string> } = {},
): TestHost {
  const stderr: string[] = [];
  const stderrWaiters = new Set<(line: string) => void>();
  const info: string[] = [];
  const consents: McpConsentRequest[] = [];
  const manager = new McpManager({
    root,
    log: {
      stderr: (s, line) => {
        stderr.push(`${s}: ${line}`);
        for (const w of stderrWaiters) w(`${s}: ${line}`);
      },
      info: (s, m) => info.push(`${s}: ${m}`),
    },
    consent: async (req) => {
      consents.push(req);
      return options.allow ?? false;
    },
    input: async (input) => options.inputs?.[input.id],
    // Tests of other paths wait for a slow start (START_WAIT_MS); tests of these bounds pass their own.
    firstRunWaitMs: START_WAIT_MS,
    startTimeoutMs: START_WAIT_MS,
    ...options,
  });
  t.after(() => manager.close());
  // Their waits may include a server's (re)start: a restart, a fixture's first stderr line.
  const until = (pred: () => boolean, what: string, ms = START_WAIT_MS) =>
    pred()
      ? Promise.resolve()
      : withTimeout(
          new Promise<void>((done) => {
            const off = manager.onDidChange(() => {
              if (!pred()) return;
              off();
              done();
            });
          }),
          ms,
          what,
        );
  const stderrLine = (re: RegExp, ms = START_WAIT_MS) => {
    const seen = stderr.find((l) => re.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    let waiter: (line: string) => void = () => undefined;
    return withTimeout(
      new Promise<string>((done) => {
        waiter = (line) => {
          if (re.test(line)) done(line);
        };
        stderrWaiters.add(waiter);
      }),
      ms,
      `a stderr line matching ${re}`,
    ).finally(() => stderrWaiters.delete(waiter));
  };
  return { manager, stderr, info, consents, until, stderrLine };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, "close");
  return port;
}

/** server-everything over HTTP (`streamableHttp` at /mcp, or `sse` at /sse) on a free port, stopped after the test. */
export async function httpEverything(
  t: { after(fn: () => unknown): void },
  mode: "streamableHttp" | "sse",
): Promise<{ port: number; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, mode], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  t.after(() => {
    child.kill();
  });
  const lines = createInterface({ input: child.stderr! });
  await withTimeout(
    new Promise<void>((done, fail) => {
      lines.on("line", (line) => {
        if (/listening on port|running on port/i.test(line)) done();
      });
      child.once("exit", (code) => fail(new Error(`server-everything ${mode} exited with ${code}`)));
    }),
    START_WAIT_MS,
    `server-everything ${mode} to listen`,
  );
  return { port, child };
}
