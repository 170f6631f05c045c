import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { startProviderServer, wire } from "../support/provider-server";
import { tempWorkspace } from "../support/temp";
import { buildCli, cliEnv, onTerminal, runCli } from "./helpers";

before(buildCli);

test("without a terminal, run prints each tool call's outcome on stderr: done, failed, refused by the policy", async (t) => {
  const root = tempWorkspace(t);
  let n = 0;
  const server = await startProviderServer(() =>
    n++ === 0
      ? {
          sse: wire.openaiChat({
            toolCalls: [
              { id: "c1", name: "write_file", arguments: { path: "hello.txt", content: "hi\n" } },
              { id: "c2", name: "read_file", arguments: { path: "missing.txt" } },
              { id: "c3", name: "list_dir", arguments: {} },
            ],
          }),
        }
      : { sse: wire.openaiChat({ text: "I could not write it." }) },
  );
  t.after(() => server.close());
  const r = await runCli(["run", "--cwd", root, "--approve", "reads", "write hello.txt"], cliEnv(server.baseURL));
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!existsSync(join(root, "hello.txt")));
  assert.match(r.stderr, /→ write_file\n/);
  assert.match(
    r.stderr,
    /✗ write_file refused by the approval policy: edit tools need approval and no one can be asked\n/,
  );
  assert.match(r.stderr, /✗ read_file failed: missing\.txt: no such file or directory\n/);
  assert.match(r.stderr, /✓ list_dir done\n/);
  assert.equal(r.stdout.trim(), "I could not write it.");
  const toolMessage = server.requests[1]!.body.messages.find(
    (m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === "c1",
  );
  assert.equal(
    toolMessage.content,
    "Nothing ran: this edit (write_file) was refused by the approval policy: edit tools need approval and no one can be asked. Do not retry it unchanged.",
  );
});

test("on a terminal, reasoning is set apart from the answer", async (t) => {
  const root = tempWorkspace(t);
  const server = await startProviderServer(() => ({
    sse: wire.openaiChat({ reasoning: "I will use the write tool.", text: "Creating hello.txt now." }),
  }));
  t.after(() => server.close());
  const tty = onTerminal(["run", "--cwd", root, "make hello.txt"], { ...cliEnv(server.baseURL), TERM: "xterm" });
  assert.equal(await tty.done, 0, tty.screen());
  const screen = tty
    .screen()
    .replace(/\x1b\[[0-9;]*m/g, "")
    .replace(/\r/g, "");
  assert.match(screen, /thinking: I will use the write tool\.\n\nCreating hello\.txt now\./);
});
