import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { startProviderServer, wire } from "../support/provider-server";
import { tempWorkspace } from "../support/temp";
import { buildCli, cliEnv, runCli, startCli, waitFor } from "./helpers";

before(buildCli);

const sessionIdOf = (stderr: string) => stderr.match(/session (session-[0-9a-f-]+)/)?.[1];

/** Every assistant tool call in an openai-chat request has a tool message answering it. */
function assertNoOrphanedToolCalls(body: { messages: any[] }): void {
  const answered = new Set(body.messages.filter((m) => m.role === "tool").map((m) => m.tool_call_id));
  for (const m of body.messages)
    for (const call of m.tool_calls ?? []) assert.ok(answered.has(call.id), `tool call ${call.id} has a result`);
}

test("SIGKILL mid-stream: show recovers the interrupted answer and run --session continues cleanly", async (t) => {
  const root = tempWorkspace(t);
  let n = 0;
  const frames = wire.openaiChat({ text: "Partial answer that will be cut off by a crash", chunkSize: 6 });
  const server = await startProviderServer(() =>
    n++ === 0 ? { sse: frames, stallAfter: 6 } : { sse: wire.openaiChat({ text: "Continuing after the crash." }) },
  );
  t.after(() => server.close());
  const env = cliEnv(server.baseURL);

  const run = startCli(["run", "--cwd", root, "explain the code"], env);
  await waitFor(() => sessionIdOf(run.stderrText()) !== undefined, 10_000, "session id");
  const id = sessionIdOf(run.stderrText())!;
  const draft = join(root, ".downcity/agents/code/sessions", id, "messages/assistant_message.json");
  await waitFor(() => existsSync(draft) && readFileSync(draft, "utf8").includes("Partial answer"), 10_000, "the draft");
  run.child.kill("SIGKILL");
  const killed = await run.result;
  assert.equal(killed.signal, "SIGKILL");

  const shown = await runCli(["sessions", "show", id, "--cwd", root], env);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /assistant \(#\d+\) — interrupted/);
  assert.match(shown.stdout, /Partial answer/);

  const next = await runCli(["run", "--cwd", root, "--session", id, "go on"], env);
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stdout, /Continuing after the crash\./);
  const body = server.requests.at(-1)!.body;
  assertNoOrphanedToolCalls(body);
  assert.deepEqual(
    body.messages.map((m: { role: string }) => m.role),
    ["system", "user", "assistant", "user"],
  );
  assert.match(JSON.stringify(body.messages[2]), /Partial answer/);
});

test("SIGKILL mid-tool: the open tool call gets a synthetic result and the next request has no orphan", async (t) => {
  const root = tempWorkspace(t);
  let n = 0;
  const server = await startProviderServer(() =>
    n++ === 0
      ? {
          sse: wire.openaiChat({
            toolCalls: [{ id: "call_slow", name: "run_command", arguments: { command: "sleep 3" } }],
          }),
        }
      : { sse: wire.openaiChat({ text: "Recovered." }) },
  );
  t.after(() => server.close());
  const env = cliEnv(server.baseURL);

  const run = startCli(["run", "--cwd", root, "--approve", "all", "run the slow thing"], env);
  await waitFor(() => sessionIdOf(run.stderrText()) !== undefined, 10_000, "session id");
  const id = sessionIdOf(run.stderrText())!;
  const active = join(root, ".downcity/agents/code/sessions", id, "messages/active.jsonl");
  // The tool call is durable (the write-behind window has passed) while the command runs.
  await waitFor(
    () => existsSync(active) && readFileSync(active, "utf8").includes('"tool/approval"'),
    10_000,
    "the durable tool call",
  );
  run.child.kill("SIGKILL");
  await run.result;

  const shown = await runCli(["sessions", "show", id, "--cwd", root, "--json"], env);
  assert.equal(shown.code, 0, shown.stderr);
  const page = JSON.parse(shown.stdout);
  const result = page.events.find((e: any) => e.type === "tool/result");
  assert.equal(result.data.toolCallId, "call_slow");
  assert.ok(result.data.synthetic, "a synthetic result closes the call");
  assert.equal(page.events.at(-1).type, "turn/end", "the unterminated turn is closed");

  const next = await runCli(["run", "--cwd", root, "--session", id, "what happened?"], env);
  assert.equal(next.code, 0, next.stderr);
  const body = server.requests.at(-1)!.body;
  assertNoOrphanedToolCalls(body);
  assert.deepEqual(
    body.messages.map((m: { role: string }) => m.role),
    ["system", "user", "assistant", "tool", "user"],
  );
});
