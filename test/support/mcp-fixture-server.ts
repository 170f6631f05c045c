/*
 * A tiny stdio MCP server for the paths server-everything has no tool for: a tool whose
 * schema is malformed, a huge result, a call that kills the server mid-way, a tool
 * list that changes, progress that reaches the client in the same read as the result, and
 * a call that waits until the client cancels it (saying on stderr that it was told). Run: node --import tsx test/support/mcp-fixture-server.ts
 * FIXTURE_CRASH_ON_START=1 makes it exit before answering `initialize`.
 * FIXTURE_STARTED=<file> makes it append its pid to that file first thing: a test sees
 * whether a server process was started at all.
 * FIXTURE_WAIT_FOR=<file> makes it hang at start (answering nothing) until that file
 * exists: a server slow to start, released by the test (it gives up after FIXTURE_WAIT_MS,
 * default 120 s, so a test that never releases it leaves no process behind);
 * with FIXTURE_CRASH_AFTER_WAIT=1 it exits once released instead.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { appendFileSync, existsSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

if (process.env.FIXTURE_STARTED) appendFileSync(process.env.FIXTURE_STARTED, `${process.pid}\n`);
if (process.env.FIXTURE_CRASH_ON_START === "1") {
  process.stderr.write("fixture: crashing on start\n");
  process.exit(3);
}

const server = new Server({ name: "fixture", version: "1" }, { capabilities: { tools: { listChanged: true } } });
let extra = false;

const object = (properties: Record<string, unknown> = {}) => ({ type: "object", properties });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "ok", description: "Answers ok", inputSchema: object({ word: { type: "string" } }) },
    { name: "bad_schema", description: "Its schema does not compile", inputSchema: object({ n: { type: "integr" } }) },
    { name: "not_object", description: "Its schema is not an object schema", inputSchema: { type: "string" } },
    { name: "huge", description: "Returns a huge text", inputSchema: object({ chars: { type: "number" } }) },
    { name: "crash", description: "Exits mid-call", inputSchema: object() },
    { name: "add_tool", description: "Adds a tool and says so", inputSchema: object() },
    { name: "env", description: "Returns an environment variable", inputSchema: object({ name: { type: "string" } }) },
    { name: "wait", description: "Waits until the call is cancelled", inputSchema: object() },
    {
      name: "progress_burst",
      description: "Sends its progress and its result in one write",
      inputSchema: object({ steps: { type: "number" } }),
    },
    ...(extra ? [{ name: "extra", description: "Appears after add_tool", inputSchema: object() }] : []),
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (req, ctx) => {
  const args = (req.params.arguments ?? {}) as Record<string, unknown>;
  switch (req.params.name) {
    case "ok":
      return { content: [{ type: "text", text: `ok ${String(args.word ?? "")}`.trim() }] };
    case "huge":
      return { content: [{ type: "text", text: "x".repeat(Number(args.chars ?? 200_000)) }] };
    case "crash":
      process.stderr.write("fixture: crashing mid-call\n");
      process.exit(7);
    case "add_tool":
      extra = true;
      await server.sendToolListChanged();
      return { content: [{ type: "text", text: "added" }] };
    case "env":
      return { content: [{ type: "text", text: process.env[String(args.name)] ?? "(unset)" }] };
    case "extra":
      return { content: [{ type: "text", text: "extra ran" }] };
    case "wait": {
      process.stderr.write("fixture: waiting to be cancelled\n");
      await new Promise((cancelled) => ctx.signal.addEventListener("abort", cancelled, { once: true }));
      process.stderr.write(`fixture: wait was cancelled by the client: ${String(ctx.signal.reason)}\n`);
      return { content: [{ type: "text", text: "cancelled" }] };
    }
    case "progress_burst": {
      // Corked until the response is written too: one writev, so the client reads all of it at once.
      process.stdout.cork();
      setImmediate(() => process.stdout.uncork());
      const steps = Number(args.steps ?? 3);
      const progressToken = req.params._meta?.progressToken;
      for (let i = 1; progressToken !== undefined && i <= steps; i++)
        await ctx.sendNotification({
          method: "notifications/progress",
          params: { progressToken, progress: i, total: steps },
        });
      return { content: [{ type: "text", text: `burst of ${steps}` }] };
    }
    default:
      return { content: [{ type: "text", text: `no tool ${req.params.name}` }], isError: true };
  }
});

/** Resolves once `file` exists (its folder watched); exits the process after FIXTURE_WAIT_MS. */
function gate(file: string | undefined): Promise<void> {
  if (!file || existsSync(file)) return Promise.resolve();
  process.stderr.write(`fixture: waiting for ${basename(file)}\n`);
  return new Promise((ok) => {
    const give = setTimeout(() => process.exit(4), Number(process.env.FIXTURE_WAIT_MS ?? 120_000));
    const watcher = watch(dirname(file), () => {
      if (!existsSync(file)) return;
      clearTimeout(give);
      watcher.close();
      ok();
    });
    if (existsSync(file)) {
      clearTimeout(give);
      watcher.close();
      ok();
    }
  });
}

void gate(process.env.FIXTURE_WAIT_FOR)
  .then(() => {
    if (process.env.FIXTURE_CRASH_AFTER_WAIT !== "1") return;
    process.stderr.write("fixture: crashing after the wait\n");
    process.exit(5);
  })
  .then(() => server.connect(new StdioServerTransport()))
  .then(() => process.stderr.write("fixture: ready\n"));
