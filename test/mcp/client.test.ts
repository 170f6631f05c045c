import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolRegistry } from "../../core/tools/registry";
import type { ToolContext, ToolOutput } from "../../core/tools/types";
import type { ToolUpdate } from "../../core/protocol";
import { config, everythingServer, FILESYSTEM, fixtureServer, httpEverything, testHost, WORKSPACE } from "./helpers";
import { tempDir } from "../support/temp";
import { withTimeout } from "../support/with-timeout";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const text = (o: ToolOutput) => o.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("\n");

async function run(
  tools: Awaited<ReturnType<ReturnType<typeof testHost>["manager"]["tools"]>>["tools"],
  name: string,
  args: unknown,
  ctx: Partial<ToolContext> = {},
) {
  const registry = new ToolRegistry(tools);
  return registry.run(name, args, { root: "/", signal: new AbortController().signal, ...ctx });
}

test("server-everything over stdio: started at the first tools() call, tools namespaced, text, image, structured and embedded results", async (t) => {
  const root = tempDir(t);
  const h = testHost(t, root);
  h.manager.setConfig(config({ everything: everythingServer() }));
  assert.equal(h.manager.status()[0]!.state, "stopped", "nothing starts before a run needs tools");
  const { tools, notices } = await h.manager.tools();
  assert.deepEqual(notices, []);
  const names = tools.map((x) => x.name);
  for (const n of [
    "mcp__everything__echo",
    "mcp__everything__get-tiny-image",
    "mcp__everything__trigger-long-running-operation",
  ])
    assert.ok(names.includes(n), n);
  const echo = tools.find((x) => x.name === "mcp__everything__echo")!;
  assert.equal(echo.kind, "command");
  assert.deepEqual(
    new ToolRegistry([echo]).specs()[0]!.parameters.required,
    ["message"],
    "the server's own JSON schema reaches the model",
  );

  assert.equal(text(await run(tools, "mcp__everything__echo", { message: "hi there" })), "Echo: hi there");
  const bad = await run(tools, "mcp__everything__echo", { message: 42 });
  assert.equal(bad.isError, true);
  assert.match(text(bad), /invalid arguments/);

  const image = await run(tools, "mcp__everything__get-tiny-image", {});
  const img = image.content.find((p) => p.type === "image");
  assert.ok(img && img.type === "image" && img.mediaType === "image/png" && img.data.length > 100);

  const structured = await run(tools, "mcp__everything__get-structured-content", { location: "Chicago" });
  assert.match(text(structured), /temperature/);

  const resource = await run(tools, "mcp__everything__get-resource-reference", { resourceType: "Text", resourceId: 1 });
  assert.match(text(resource), /Resource .*resource/i);

  const second = await h.manager.tools();
  assert.equal(second.tools[0], tools[0], "a later run reuses the running server and the same tool objects");
  assert.equal(h.manager.status()[0]!.transport, "stdio");
});

test("long-running progress reaches onUpdate, and Stop cancels the call on the server", async (t) => {
  const h = testHost(t, tempDir(t));
  h.manager.setConfig(config({ everything: everythingServer() }));
  const { tools } = await h.manager.tools();
  const updates: ToolUpdate[] = [];
  const done = await run(
    tools,
    "mcp__everything__trigger-long-running-operation",
    { duration: 0.3, steps: 3 },
    { onUpdate: (u) => updates.push(u) },
  );
  assert.match(text(done), /Long running operation completed/);
  // The server sends each step's progress before its result: all of it reaches the card, however busy the client.
  assert.deepEqual(
    updates.map((u) => u.text),
    ["progress 1/3\n", "progress 2/3\n", "progress 3/3\n"],
  );
  assert.ok(updates.every((u) => u.stream === "progress"));

  const stop = new AbortController();
  const cancelled = await run(
    tools,
    "mcp__everything__trigger-long-running-operation",
    { duration: 60, steps: 60 },
    {
      signal: stop.signal,
      onUpdate: () => stop.abort(),
    },
  );
  assert.equal(cancelled.isError, true);
  assert.match(text(cancelled), /cancelled; the MCP server "everything" was told to stop it/);
  // The connection is still usable after a cancelled call.
  assert.equal(text(await run(tools, "mcp__everything__echo", { message: "after" })), "Echo: after");
});

test("progress that arrives in the same read as the result still reaches onUpdate, before the result", async (t) => {
  // A busy client reads the server's progress and its result in one chunk (the flake under load 15:
  // the SDK settled the call first and dropped the progress). The fixture sends them in one write.
  const h = testHost(t, tempDir(t));
  h.manager.setConfig(config({ fx: fixtureServer() }));
  const { tools } = await h.manager.tools();
  const seen: string[] = [];
  const out = await run(tools, "mcp__fx__progress_burst", { steps: 3 }, { onUpdate: (u) => seen.push(u.text) });
  seen.push(text(out));
  assert.deepEqual(seen, ["progress 1/3\n", "progress 2/3\n", "progress 3/3\n", "burst of 3"]);
  assert.equal(text(await run(tools, "mcp__fx__ok", { word: "after" })), "ok after", "later calls are answered");
});

test("a call that outlives the timeout is cancelled with a message saying so", async (t) => {
  const h = testHost(t, tempDir(t), { callTimeoutMs: 300 });
  h.manager.setConfig(config({ everything: everythingServer() }));
  const { tools } = await h.manager.tools();
  // One step of 30 s: no progress resets the timer.
  const out = await run(tools, "mcp__everything__trigger-long-running-operation", { duration: 30, steps: 1 });
  assert.equal(out.isError, true);
  assert.match(text(out), /no answer from the MCP server "everything" within 0 s|within 0 s/);
});

test("Stop and the timeout reach the server: its handler is aborted by notifications/cancelled, with the reason", async (t) => {
  const h = testHost(t, tempDir(t), { callTimeoutMs: 400 });
  h.manager.setConfig(config({ fx: fixtureServer() }));
  const { tools } = await h.manager.tools();

  const stop = new AbortController();
  const waiting = h.stderrLine(/fixture: waiting to be cancelled/);
  const stopped = run(tools, "mcp__fx__wait", {}, { signal: stop.signal });
  await waiting;
  stop.abort(new Error("the user pressed Stop"));
  assert.match(
    text(await withTimeout(stopped, 20_000, "the stopped call")),
    /wait was cancelled; the MCP server "fx" was told to stop it/,
  );
  assert.match(await h.stderrLine(/wait was cancelled by the client/), /the user pressed Stop/);

  // No answer within callTimeoutMs: the SDK's timeout cancels the call on the server as well.
  const timedOut = await run(tools, "mcp__fx__wait", {});
  assert.match(text(timedOut), /no answer from the MCP server "fx" within 0 s; the call was cancelled on the server/);
  const told = await h.stderrLine(/wait was cancelled by the client: .*timed out/i);
  assert.match(told, /Request timed out/);
});

test("Streamable HTTP on 127.0.0.1, and the legacy SSE transport as the fallback", async (t) => {
  const http = await httpEverything(t, "streamableHttp");
  const sse = await httpEverything(t, "sse");
  const h = testHost(t, tempDir(t));
  h.manager.setConfig(
    config({
      web: { type: "http", url: `http://127.0.0.1:${http.port}/mcp` },
      old: { url: `http://127.0.0.1:${sse.port}/sse` },
    }),
  );
  const { tools, notices } = await h.manager.tools();
  assert.deepEqual(notices, []);
  const byName = Object.fromEntries(h.manager.status().map((s) => [s.name, s]));
  assert.equal(byName.web!.transport, "streamable-http");
  assert.equal(byName.old!.transport, "sse");
  assert.ok(h.info.some((l) => /old: Streamable HTTP failed .*trying the legacy SSE/s.test(l)));
  assert.equal(text(await run(tools, "mcp__web__echo", { message: "over http" })), "Echo: over http");
  assert.equal(text(await run(tools, "mcp__old__echo", { message: "over sse" })), "Echo: over sse");
});

test("server-filesystem: its tools work on the folder it is given", async (t) => {
  const root = tempDir(t);
  writeFileSync(join(root, "note.txt"), "hello from the disk\n");
  const h = testHost(t, root);
  h.manager.setConfig(config({ files: { command: process.execPath, args: [FILESYSTEM, "${workspaceFolder}"] } }));
  const { tools } = await h.manager.tools();
  const read = tools.find((x) => /^mcp__files__read(_text)?_file$/.test(x.name))!;
  assert.ok(read, `a read tool among ${tools.map((x) => x.name).join(", ")}`);
  assert.match(text(await run(tools, read.name, { path: join(root, "note.txt") })), /hello from the disk/);
  assert.ok(
    h.stderr.some((l) => l.startsWith("files: ")),
    "the server's stderr reaches the log sink",
  );
});

test("a malformed schema disables that one tool with a clear message; a huge result is capped with the cap stated; list_changed refreshes", async (t) => {
  const h = testHost(t, tempDir(t));
  h.manager.setConfig(config({ fx: fixtureServer() }));
  const { tools, notices } = await h.manager.tools();
  const names = tools.map((x) => x.name);
  assert.ok(
    names.includes("mcp__fx__ok") && !names.includes("mcp__fx__bad_schema") && !names.includes("mcp__fx__not_object"),
  );
  assert.equal(notices.length, 2);
  assert.match(
    notices[0]!,
    /MCP server "fx": tool "bad_schema" is disabled because its inputSchema is malformed: .*integr/,
  );
  assert.match(notices[1]!, /tool "not_object" is disabled because its inputSchema must have "type": "object"/);
  assert.deepEqual(
    h.manager.status()[0]!.disabledTools.map((d) => d.tool),
    ["bad_schema", "not_object"],
  );
  assert.equal(text(await run(tools, "mcp__fx__ok", { word: "fine" })), "ok fine");

  const huge = await run(tools, "mcp__fx__huge", { chars: 500_000 });
  assert.equal(huge.truncated, true);
  const body = text(huge);
  assert.ok(body.length < 34_000, `capped (${body.length})`);
  assert.match(body, /\[MCP result capped at 32,000 characters: the server returned 500,000\]/);

  const changed = h.until(() => h.manager.status()[0]!.tools.includes("mcp__fx__extra"), "the refreshed tool list");
  await run(tools, "mcp__fx__add_tool", {});
  await changed;
  const again = await h.manager.tools();
  assert.equal(text(await run(again.tools, "mcp__fx__extra", {})), "extra ran");
});

test("a server that crashes mid-call: the call fails with the reason and stderr, the server restarts and works again", async (t) => {
  const h = testHost(t, tempDir(t), { backoff: { baseMs: 10 } });
  h.manager.setConfig(config({ fx: fixtureServer() }));
  const { tools } = await h.manager.tools();
  const restarted = h.until(
    () => h.manager.status()[0]!.state === "running" && h.manager.status()[0]!.restarts === 1,
    "the restart",
  );
  const out = await run(tools, "mcp__fx__crash", {});
  assert.equal(out.isError, true);
  assert.match(text(out), /The MCP server "fx" exited during the call to crash; it will be restarted/);
  assert.match(text(out), /fixture: crashing mid-call/);
  await restarted;
  const after = await h.manager.tools();
  assert.equal(text(await run(after.tools, "mcp__fx__ok", {})), "ok");
});

test("consent: a workspace server shows its command line and does not start when declined; accepted, it starts", async (t) => {
  const root = tempDir(t);
  const declined = testHost(t, root, { allow: false });
  declined.manager.setConfig(config({ fx: fixtureServer() }, WORKSPACE));
  const none = await declined.manager.tools();
  assert.equal(none.tools.length, 0);
  assert.equal(declined.consents.length, 1);
  assert.equal(declined.consents[0]!.server, "fx");
  assert.match(declined.consents[0]!.launch, /mcp-fixture-server\.ts$/);
  assert.equal(declined.manager.status()[0]!.state, "failed");
  assert.match(declined.manager.status()[0]!.lastError!, /did not allow/);
  await declined.manager.tools();
  assert.equal(declined.consents.length, 1, "a declined server is not asked about at every run");

  const allowed = testHost(t, root, { allow: true });
  allowed.manager.setConfig(config({ fx: fixtureServer() }, WORKSPACE));
  assert.ok((await allowed.manager.tools()).tools.length > 0);
  assert.equal(allowed.consents.length, 1);

  const user = testHost(t, root, { allow: false });
  user.manager.setConfig(config({ fx: fixtureServer() }));
  assert.ok((await user.manager.tools()).tools.length > 0, "the user's own config needs no consent");
  assert.equal(user.consents.length, 0);
});

test("Restricted Mode starts no server; inputs reach the server's environment and are asked only at start", async (t) => {
  const root = tempDir(t);
  let trusted = false;
  const restricted = testHost(t, root, {
    restricted: () => (trusted ? undefined : "the folder is not trusted"),
    allow: true,
  });
  restricted.manager.setConfig(config({ fx: fixtureServer() }, WORKSPACE));
  assert.deepEqual(await restricted.manager.tools(), { tools: [], notices: [] });
  await assert.rejects(restricted.manager.start("fx"), /Restricted Mode/);
  await assert.rejects(restricted.manager.restart("fx"), /Restricted Mode/);
  assert.equal(restricted.consents.length, 0);
  assert.equal(restricted.manager.status()[0]!.state, "stopped", "a refused Start leaves it stopped, not failed");
  // Trust granted: the next run starts it (after the folder's consent), as if nothing had been tried.
  trusted = true;
  assert.ok((await restricted.manager.tools()).tools.some((x) => x.name === "mcp__fx__ok"));
  assert.equal(restricted.consents.length, 1);

  const asked: string[] = [];
  const h = testHost(t, root, { input: async (i) => (asked.push(i.id), "s3cret-value") });
  h.manager.setConfig(
    config({ fx: fixtureServer({ API_KEY: "${input:key}" }) }, undefined, [{ id: "key", password: true }]),
  );
  const { tools } = await h.manager.tools();
  assert.equal(text(await run(tools, "mcp__fx__env", { name: "API_KEY" })), "s3cret-value");
  assert.deepEqual(asked, ["key"]);
  assert.ok(![...h.info, ...h.stderr].some((l) => l.includes("s3cret-value")), "the secret is in no log line");
  assert.ok(!JSON.stringify(h.manager.status()).includes("s3cret-value"), "nor in the status the QuickPick shows");

  const missing = testHost(t, root);
  missing.manager.setConfig(config({ fx: fixtureServer({ API_KEY: "${input:key}" }) }, undefined, [{ id: "key" }]));
  const res = await missing.manager.tools();
  assert.match(res.notices[0]!, /no value was given for the input "key"/);
});
