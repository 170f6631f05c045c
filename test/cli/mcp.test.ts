import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { startProviderServer, wire } from "../support/provider-server";
import { tempDir } from "../support/temp";
import { tempWorkspace } from "../support/temp";
import { everythingServer, fixtureServer } from "../mcp/helpers";
import { buildCli, cliEnv, runCli } from "./helpers";

before(buildCli);

/** A folder whose `.vscode/mcp.json` names the fixture server, and a user file (XDG) naming server-everything. */
function setup(t: { after(fn: () => unknown): void }) {
  const root = tempWorkspace(t);
  mkdirSync(join(root, ".vscode"));
  writeFileSync(
    join(root, ".vscode", "mcp.json"),
    `{\n  // from the clone\n  "servers": { "fx": ${JSON.stringify(fixtureServer())}, },\n}\n`,
  );
  const xdg = tempDir(t);
  mkdirSync(join(xdg, "downcity"));
  writeFileSync(join(xdg, "downcity", "mcp.json"), JSON.stringify({ servers: { everything: everythingServer() } }));
  return { root, xdg };
}

const toolNames = (body: { tools?: { function: { name: string } }[] }) =>
  (body.tools ?? []).map((x) => x.function.name);

test("run: the folder's servers need consent (refused without a terminal, said on stderr); the user's file is trusted", async (t) => {
  const { root, xdg } = setup(t);
  const server = await startProviderServer(() => ({ sse: wire.openaiChat({ text: "hello" }) }));
  t.after(() => server.close());
  const r = await runCli(["run", "--cwd", root, "hi"], cliEnv(server.baseURL, { XDG_CONFIG_HOME: xdg }));
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /mcp: not starting "fx" from \.vscode\/mcp\.json \(.*mcp-fixture-server\.ts\): pass --mcp-trust to allow the folder's servers/,
  );
  const names = toolNames(server.requests[0]!.body);
  assert.ok(names.includes("mcp__everything__echo"), names.join(", "));
  assert.ok(!names.some((n) => n.startsWith("mcp__fx__")));
});

test("run --mcp-trust --mcp-allow fx/ok: the folder's server starts and its allowed tool runs unasked; --no-mcp starts none", async (t) => {
  const { root, xdg } = setup(t);
  let n = 0;
  const server = await startProviderServer(() =>
    n++ === 0
      ? { sse: wire.openaiChat({ toolCalls: [{ id: "m1", name: "mcp__fx__ok", arguments: { word: "cli" } }] }) }
      : { sse: wire.openaiChat({ text: "done" }) },
  );
  t.after(() => server.close());
  const r = await runCli(
    ["run", "--cwd", root, "--mcp-trust", "--mcp-allow", "fx/ok", "call it"],
    cliEnv(server.baseURL, { XDG_CONFIG_HOME: xdg }),
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /✓ mcp__fx__ok done/);
  assert.match(r.stderr, /\[mcp fx\] fixture: ready/, "the server's stderr is shown, dimmed");
  const tool = server.requests[1]!.body.messages.find((m: { role: string }) => m.role === "tool");
  assert.equal(tool.content, "ok cli");

  const off = await startProviderServer(() => ({ sse: wire.openaiChat({ text: "plain" }) }));
  t.after(() => off.close());
  const none = await runCli(["run", "--cwd", root, "--no-mcp", "hi"], cliEnv(off.baseURL, { XDG_CONFIG_HOME: xdg }));
  assert.equal(none.code, 0, none.stderr);
  assert.ok(!toolNames(off.requests[0]!.body).some((x) => x.startsWith("mcp__")));
});
