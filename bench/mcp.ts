// MCP client figures (issue 25): a server's start until its tools are listed, the latency an
// MCP tool call adds over a built-in tool (same run, same registry path, interleaved), and
// the memory of a running server connection (in this process, and the server's own process).
// Real servers: @modelcontextprotocol/server-everything over stdio and Streamable HTTP.
// Run: node --expose-gc --import tsx bench/mcp.ts [calls] [starts] [connections]
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseMcpConfig } from "../core/mcp/config";
import { McpManager } from "../core/mcp/manager";
import { createNodeTools } from "../core/tools/node";
import { ToolRegistry } from "../core/tools/registry";
import type { Tool } from "../core/tools/types";
import { fmt, median, mib, table, timeMsAsync } from "./stats";

const CALLS = Number(process.argv[2] ?? 300);
const STARTS = Number(process.argv[3] ?? 7);
const CONNECTIONS = Number(process.argv[4] ?? 5);
const EVERYTHING = resolve(__dirname, "../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const root = realpathSync(mkdtempSync(join(tmpdir(), "downcity-bench-mcp-")));
writeFileSync(join(root, "small.txt"), "one line of text\n".repeat(5));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const manager = (_servers: Record<string, unknown>) =>
  new McpManager({
    root,
    log: { stderr: () => {}, info: () => {} },
    consent: async () => true,
    input: async () => undefined,
    // The figure is start → tools listed: wait for the server however long it takes (a run's
    // default 3 s bound lets it go on without a slow server, which here would measure the bound).
    firstRunWaitMs: 120_000,
    startTimeoutMs: 120_000,
  });
const stdio = { command: process.execPath, args: [EVERYTHING, "stdio"] };

async function startToListed(config: Record<string, unknown>): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const m = manager({});
    m.setConfig(parseMcpConfig({ servers: { s: config } }, { kind: "user", label: "bench" }));
    times.push(
      await timeMsAsync(async () => {
        const { tools } = await m.tools();
        if (tools.length === 0) throw new Error("no tools listed");
      }),
    );
    await m.close();
  }
  return times;
}

async function httpServer(): Promise<{ url: string; stop(): void }> {
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const port = (probe.address() as { port: number }).port;
  probe.close();
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise<void>((done) =>
    createInterface({ input: child.stderr! }).on("line", (l) => /listening on port/i.test(l) && done()),
  );
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill() };
}

const ctx = () => ({ root, signal: new AbortController().signal });

/** Interleaved calls (built-in, MCP, built-in, …) so the machine's load hits both alike. */
async function callLatency(
  tools: readonly Tool[],
  mcpName: string,
  mcpArgs: unknown,
): Promise<{ builtin: number[]; mcp: number[] }> {
  const registry = new ToolRegistry([...createNodeTools(), ...tools]);
  const builtin: number[] = [];
  const mcp: number[] = [];
  for (let i = 0; i < 20; i++) {
    await registry.run("read_file", { path: "small.txt" }, ctx());
    await registry.run(mcpName, mcpArgs, ctx());
  }
  for (let i = 0; i < CALLS; i++) {
    builtin.push(await timeMsAsync(() => registry.run("read_file", { path: "small.txt" }, ctx())));
    mcp.push(
      await timeMsAsync(async () => {
        const out = await registry.run(mcpName, mcpArgs, ctx());
        if (out.isError) throw new Error(JSON.stringify(out.content));
      }),
    );
  }
  return { builtin, mcp };
}

function childRssKiB(): number {
  try {
    return execFileSync("ps", ["--ppid", String(process.pid), "-o", "rss="], { encoding: "utf8" })
      .split("\n")
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0)
      .reduce((a, b) => a + b, 0);
  } catch {
    return 0;
  }
}

async function main() {
  console.log(
    `MCP bench: ${CALLS} calls, ${STARTS} starts, ${CONNECTIONS} connections; node ${process.version}; load ${(
      await import("node:os")
    )
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  const stdioStarts = await startToListed(stdio);
  const http = await httpServer();
  const httpStarts = await startToListed({ type: "http", url: http.url });

  const m = manager({});
  m.setConfig(
    parseMcpConfig(
      { servers: { everything: stdio, web: { type: "http", url: http.url } } },
      { kind: "user", label: "bench" },
    ),
  );
  const { tools } = await m.tools();
  const stdioCalls = await callLatency(tools, "mcp__everything__echo", { message: "hi" });
  const httpCalls = await callLatency(tools, "mcp__web__echo", { message: "hi" });
  await m.close();

  table(
    ["measurement", "median", "min", "max", "notes"],
    [
      [
        "stdio: start → tools listed",
        `${fmt(median(stdioStarts), 1)} ms`,
        `${fmt(Math.min(...stdioStarts), 1)} ms`,
        `${fmt(Math.max(...stdioStarts), 1)} ms`,
        `${STARTS} cold starts (spawn node + initialize + tools/list)`,
      ],
      [
        "Streamable HTTP: connect → tools listed",
        `${fmt(median(httpStarts), 1)} ms`,
        `${fmt(Math.min(...httpStarts), 1)} ms`,
        `${fmt(Math.max(...httpStarts), 1)} ms`,
        "server already listening on 127.0.0.1",
      ],
      [
        "built-in read_file call (registry.run)",
        `${fmt(median(stdioCalls.builtin), 3)} ms`,
        `${fmt(Math.min(...stdioCalls.builtin), 3)} ms`,
        "",
        `${CALLS} calls, interleaved`,
      ],
      [
        "MCP echo over stdio (registry.run)",
        `${fmt(median(stdioCalls.mcp), 3)} ms`,
        `${fmt(Math.min(...stdioCalls.mcp), 3)} ms`,
        "",
        `added ${fmt(median(stdioCalls.mcp) - median(stdioCalls.builtin), 3)} ms; ×${fmt(median(stdioCalls.mcp) / median(stdioCalls.builtin), 1)} the built-in`,
      ],
      [
        "built-in read_file call (second run)",
        `${fmt(median(httpCalls.builtin), 3)} ms`,
        `${fmt(Math.min(...httpCalls.builtin), 3)} ms`,
        "",
        "interleaved with the HTTP calls",
      ],
      [
        "MCP echo over Streamable HTTP",
        `${fmt(median(httpCalls.mcp), 3)} ms`,
        `${fmt(Math.min(...httpCalls.mcp), 3)} ms`,
        "",
        `added ${fmt(median(httpCalls.mcp) - median(httpCalls.builtin), 3)} ms; ×${fmt(median(httpCalls.mcp) / median(httpCalls.builtin), 1)} the built-in`,
      ],
    ],
  );
  http.stop();

  // Memory: CONNECTIONS stdio servers at once; this process's heap and RSS, and the servers' RSS.
  gc();
  await new Promise((r) => setImmediate(r));
  const before = process.memoryUsage();
  const childBefore = childRssKiB();
  const managers: McpManager[] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const mm = manager({});
    mm.setConfig(parseMcpConfig({ servers: { [`s${i}`]: stdio } }, { kind: "user", label: "bench" }));
    await mm.tools();
    managers.push(mm);
  }
  gc();
  await new Promise((r) => setImmediate(r));
  const after = process.memoryUsage();
  const childAfter = childRssKiB();
  table(
    ["memory per running stdio connection", "value"],
    [
      ["client heap (this process, after gc)", `${fmt(mib(after.heapUsed - before.heapUsed) / CONNECTIONS)} MiB`],
      ["client RSS (this process)", `${fmt(mib(after.rss - before.rss) / CONNECTIONS)} MiB`],
      ["server process RSS (server-everything, node)", `${fmt((childAfter - childBefore) / 1024 / CONNECTIONS)} MiB`],
    ],
  );
  await Promise.all(managers.map((mm) => mm.close()));
  rmSync(root, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
