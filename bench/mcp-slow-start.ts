// How long the first run's tool list waits when one MCP server hangs at start (issue 25,
// round 3): with the bounded first-run wait (default 3 s after consent) against the old
// behaviour (waiting for the server's 30 s start timeout), in the same run. One ready
// server (already started) and one that never answers `initialize` (the fixture server
// held on a gate file that never appears).
// Run: node --import tsx bench/mcp-slow-start.ts [runs]
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseMcpConfig } from "../core/mcp/config";
import { McpManager } from "../core/mcp/manager";
import { fmt, median, table, timeMsAsync } from "./stats";

const RUNS = Number(process.argv[2] ?? 3);
const REPO = resolve(__dirname, "..");
const FIXTURE = join(REPO, "test/support/mcp-fixture-server.ts");
const root = realpathSync(mkdtempSync(join(tmpdir(), "downcity-bench-mcp-slow-")));
const fixture = (env: Record<string, string> = {}) => ({
  command: process.execPath,
  args: ["--import", "tsx", FIXTURE],
  cwd: REPO,
  env,
});

async function firstRun(firstRunWaitMs: number | undefined): Promise<{ ms: number; tools: number; notice: string }> {
  const m = new McpManager({
    root,
    log: { stderr: () => {}, info: () => {} },
    consent: async () => true,
    input: async () => undefined,
    ...(firstRunWaitMs !== undefined ? { firstRunWaitMs } : {}),
  });
  m.setConfig(
    parseMcpConfig(
      { servers: { ready: fixture(), hangs: fixture({ FIXTURE_WAIT_FOR: join(root, "never") }) } },
      { kind: "user", label: "bench" },
    ),
  );
  await m.start("ready");
  let result!: Awaited<ReturnType<McpManager["tools"]>>;
  const ms = await timeMsAsync(async () => (result = await m.tools()));
  await m.close();
  return { ms, tools: result.tools.length, notice: result.notices.find((n) => /hangs/.test(n)) ?? "" };
}

async function main(): Promise<void> {
  const bounded: number[] = [];
  let last = { ms: 0, tools: 0, notice: "" };
  for (let i = 0; i < RUNS; i++) {
    last = await firstRun(undefined);
    bounded.push(last.ms);
  }
  // The old behaviour: the run waited until the hanging server's start timed out (30 s).
  const old = await firstRun(120_000);
  table(
    ["first run with a hanging server", "median ms", "runs", "tools offered", "ratio"],
    [
      ["bounded wait (default 3 s)", fmt(median(bounded), 0), RUNS, last.tools, "1"],
      ["wait for the start timeout (before)", fmt(old.ms, 0), 1, old.tools, fmt(old.ms / median(bounded), 1)],
    ],
  );
  console.log(`notice: ${last.notice}`);
  console.log(`before: ${old.notice}`);
}

void main().then(() => process.exit(0));
