import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { startProviderServer, wire } from "../support/provider-server";
import { tempDir } from "../support/temp";
import { tempWorkspace } from "../support/temp";
import { everythingServer, fixtureServer } from "../mcp/helpers";
import { buildCli, cliEnv, onTerminal, runCli, waitFor } from "./helpers";

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

test("on a terminal, a 'y' to start a folder's server is remembered in the XDG config dir per folder and command line; a changed mcp.json asks again", async (t) => {
  const { root, xdg } = setup(t);
  const server = await startProviderServer(() => ({ sse: wire.openaiChat({ text: "hello" }) }));
  t.after(() => server.close());
  const env = { ...cliEnv(server.baseURL, { XDG_CONFIG_HOME: xdg }), TERM: "xterm" };
  const consentFile = join(xdg, "downcity", "mcp-consent.json");
  const prompt = /Start the MCP server fx from \.vscode\/mcp\.json\?/;

  const first = onTerminal(["run", "--cwd", root, "hi"], env);
  await waitFor(() => prompt.test(first.screen()), 30_000, "the consent prompt");
  first.child.stdin.write("y\r");
  assert.equal(await first.done, 0, first.screen());
  assert.ok(toolNames(server.requests[0]!.body).includes("mcp__fx__ok"), "allowed, it started");
  const stored = JSON.parse(readFileSync(consentFile, "utf8"));
  assert.deepEqual(Object.keys(stored.folders), [realpathSync(root)]);
  assert.equal(stored.folders[realpathSync(root)].length, 1);
  assert.match(stored.folders[realpathSync(root)][0], /mcp-fixture-server\.ts/);

  // The next run, with no terminal at all, starts it without asking.
  const second = await runCli(["run", "--cwd", root, "hi"], env);
  assert.equal(second.code, 0, second.stderr);
  assert.doesNotMatch(second.stderr, /not starting "fx"/);
  assert.ok(toolNames(server.requests[1]!.body).includes("mcp__fx__ok"), "remembered: started unasked");

  // Another folder with the same mcp.json is asked about (refused here: no terminal).
  const other = setup(t).root;
  const elsewhere = await runCli(["run", "--cwd", other, "hi"], env);
  assert.match(elsewhere.stderr, /not starting "fx"/);

  // A changed command line asks again.
  const changed = { ...fixtureServer(), args: [...fixtureServer().args, "--changed"] };
  writeFileSync(join(root, ".vscode", "mcp.json"), JSON.stringify({ servers: { fx: changed } }));
  const third = await runCli(["run", "--cwd", root, "hi"], env);
  assert.match(third.stderr, /not starting "fx" from \.vscode\/mcp\.json \(.*--changed\)/);

  // A broken consent file is said, asked past, and never overwritten.
  writeFileSync(consentFile, "{ not json");
  const broken = await runCli(["run", "--cwd", root, "hi"], env);
  assert.equal(broken.code, 0, broken.stderr);
  assert.match(broken.stderr, /mcp-consent\.json cannot be read .*consent is asked again and not remembered/);
  assert.equal(readFileSync(consentFile, "utf8"), "{ not json");
});

test("no XDG_CONFIG_HOME (or a relative one, which XDG says to ignore): the user's file is ~/.config/downcity/mcp.json", async (t) => {
  const root = tempWorkspace(t);
  const home = tempDir(t);
  mkdirSync(join(home, ".config", "downcity"), { recursive: true });
  writeFileSync(
    join(home, ".config", "downcity", "mcp.json"),
    JSON.stringify({ servers: { everything: everythingServer() } }),
  );
  const server = await startProviderServer(() => ({ sse: wire.openaiChat({ text: "hello" }) }));
  t.after(() => server.close());
  const envs: Record<string, string>[] = [{ HOME: home }, { HOME: home, XDG_CONFIG_HOME: "relative/config" }];
  for (const [i, extra] of envs.entries()) {
    const r = await runCli(["run", "--cwd", root, "hi"], cliEnv(server.baseURL, extra));
    assert.equal(r.code, 0, r.stderr);
    const names = toolNames(server.requests[i]!.body);
    assert.ok(names.includes("mcp__everything__echo"), `${JSON.stringify(extra)}: ${names.join(", ")}`);
  }
});
