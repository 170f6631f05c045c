import assert from "node:assert/strict";
import { before, test } from "node:test";
import { startProviderServer, wire } from "../support/provider-server";
import { tempWorkspace } from "../support/temp";
import { buildCli, cliEnv, runCli } from "./helpers";

before(buildCli);

test("every command has --help", async () => {
  const env = { PATH: process.env.PATH, NO_COLOR: "1" };
  for (const args of [["--help"], ["run", "--help"], ["sessions", "--help"], ["help", "run"]]) {
    const r = await runCli(args, env);
    assert.equal(r.code, 0, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stdout, /Usage:/);
  }
  const bad = await runCli(["frobnicate"], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown command 'frobnicate'/);
});

test("run without a configured provider says how to configure one", async (t) => {
  const root = tempWorkspace(t);
  const r = await runCli(["run", "--cwd", root, "hello"], { PATH: process.env.PATH });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /No model provider is configured/);
  assert.match(r.stderr, /DOWNCITY_PROTOCOL/);
  assert.doesNotMatch(r.stderr, /\x1b\[/, "no colour when stderr is not a TTY");
  const badProtocol = await runCli(["run", "--cwd", root, "--protocol", "smoke-signals", "--model", "x", "hi"], {
    PATH: process.env.PATH,
  });
  assert.match(badProtocol.stderr, /Unknown protocol 'smoke-signals'/);
});

test("run --json prints one JSON event per line; sessions list, rename, fork, archive, export and delete manage it", async (t) => {
  const root = tempWorkspace(t);
  const server = await startProviderServer(() => ({
    sse: wire.openaiChat({ text: "Hello from the model.", usage: { input: 10, output: 5 } }),
  }));
  t.after(() => server.close());
  const env = cliEnv(server.baseURL);

  const run = await runCli(["run", "--cwd", root, "--json", "Say hello to the world"], env);
  assert.equal(run.code, 0, run.stderr);
  const events = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i + 1),
  );
  assert.equal(events.find((e) => e.type === "assistant/message").data.content[0].text, "Hello from the model.");
  assert.doesNotMatch(run.stderr, /sk-test/, "the key never reaches the output");

  const list = JSON.parse((await runCli(["sessions", "list", "--cwd", root, "--json"], env)).stdout);
  assert.equal(list.length, 1);
  const id = list[0].sessionId;
  assert.equal(list[0].title, "Say hello to the world");

  assert.equal((await runCli(["sessions", "rename", id, "Greeting", "work", "--cwd", root], env)).code, 0);
  const fork = await runCli(["sessions", "fork", id, "--cwd", root, "--json"], env);
  assert.equal(fork.code, 0, fork.stderr);
  const forkId = JSON.parse(fork.stdout).sessionId;
  assert.notEqual(forkId, id);

  const titles = JSON.parse((await runCli(["sessions", "list", "--cwd", root, "--json"], env)).stdout).map(
    (s: { sessionId: string; title: string }) => [s.sessionId, s.title],
  );
  assert.deepEqual(new Map(titles).get(id), "Greeting work");
  assert.equal(titles.length, 2);

  const md = await runCli(["sessions", "export", id, "--cwd", root], env);
  assert.match(md.stdout, /### user \(#\d+\)\n\nSay hello to the world/);
  assert.match(md.stdout, /Hello from the model\./);
  const jsonl = await runCli(["sessions", "export", id, "--cwd", root, "--format", "jsonl"], env);
  assert.ok(
    jsonl.stdout
      .trim()
      .split("\n")
      .every((line) => Number.isInteger(JSON.parse(line).seq)),
  );

  assert.equal((await runCli(["sessions", "archive", id, "--cwd", root], env)).code, 0);
  const afterArchive = JSON.parse((await runCli(["sessions", "list", "--cwd", root, "--json"], env)).stdout);
  assert.deepEqual(
    afterArchive.map((s: { sessionId: string }) => s.sessionId),
    [forkId],
  );
  const archived = JSON.parse((await runCli(["sessions", "list", "--cwd", root, "--json", "--archived"], env)).stdout);
  assert.deepEqual(
    archived.map((s: { sessionId: string }) => s.sessionId),
    [id],
  );
  assert.equal((await runCli(["sessions", "unarchive", id, "--cwd", root], env)).code, 0);
  assert.equal((await runCli(["sessions", "delete", forkId, "--cwd", root], env)).code, 0);
  const final = JSON.parse((await runCli(["sessions", "list", "--cwd", root, "--json"], env)).stdout);
  assert.deepEqual(
    final.map((s: { sessionId: string }) => s.sessionId),
    [id],
  );

  const missing = await runCli(["sessions", "show", "session-nope", "--cwd", root], env);
  assert.notEqual(missing.code, 0);
  assert.match(missing.stderr, /session-nope/);
});

test("a provider failure exits non-zero with the provider's message", async (t) => {
  const root = tempWorkspace(t);
  const server = await startProviderServer(() => wire.error("openai-chat", 401, "Incorrect API key provided"));
  t.after(() => server.close());
  const r = await runCli(["run", "--cwd", root, "hi"], cliEnv(server.baseURL));
  assert.equal(r.code, 1);
  assert.match(r.stderr, /Incorrect API key provided/);
});

for (const protocol of ["openai-chat", "openai-responses", "anthropic-messages"] as const) {
  test(`downcity run streams a tool-using answer over ${protocol}`, async (t) => {
    const root = tempWorkspace(t);
    let n = 0;
    const script = (s: Parameters<typeof wire.openaiChat>[0]) => wire.frames(protocol, s);
    const server = await startProviderServer(() => ({
      sse:
        n++ === 0
          ? script({ toolCalls: [{ id: "toolu_1", name: "list_dir", arguments: { path: "." } }] })
          : script({ text: "The folder is empty." }),
    }));
    t.after(() => server.close());
    const env = cliEnv(protocol === "anthropic-messages" ? server.anthropicBaseURL : server.baseURL, {
      DOWNCITY_PROTOCOL: protocol,
      DOWNCITY_MODEL: protocol === "anthropic-messages" ? "claude-opus-4-5" : "gpt-4o",
    });
    const r = await runCli(["run", "--cwd", root, "what is in this folder?"], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), "The folder is empty.");
    assert.match(r.stderr, /→ list_dir/);
    assert.equal(server.requests.length, 2);
  });
}

test("sessions compact closes the history into a segment on demand; show pages back to it", async (t) => {
  const root = tempWorkspace(t);
  let turn = 0;
  const server = await startProviderServer(({ body }) => {
    if (JSON.stringify(body.messages[0]).includes("cumulative summary"))
      return { sse: wire.openaiChat({ text: "SUMMARY: three greetings were exchanged." }) };
    return { sse: wire.openaiChat({ text: `Answer ${++turn}: ${"words ".repeat(400)}` }) };
  });
  t.after(() => server.close());
  const env = cliEnv(server.baseURL, { DOWNCITY_CONTEXT_WINDOW: "2000" });
  assert.equal((await runCli(["run", "--cwd", root, "hello 1"], env)).code, 0);
  const id = JSON.parse((await runCli(["sessions", "list", "--cwd", root, "--json"], env)).stdout)[0].sessionId;
  for (const n of [2, 3])
    assert.equal((await runCli(["run", "--cwd", root, "--session", id, `hello ${n}`], env)).code, 0);

  const compacted = await runCli(["sessions", "compact", id, "--cwd", root], env);
  assert.equal(compacted.code, 0, compacted.stderr);
  assert.match(compacted.stdout, /closed seq 1\.\.\d+ into a segment/);
  const page = JSON.parse((await runCli(["sessions", "show", id, "--cwd", root, "--json"], env)).stdout);
  assert.equal(page.hasOlder, true);
  assert.match(page.summary, /three greetings/);
  const older = JSON.parse(
    (await runCli(["sessions", "show", id, "--cwd", root, "--json", "--before", String(page.firstSeq)], env)).stdout,
  );
  assert.equal(older.firstSeq, 1);
  assert.ok(
    older.events.some(
      (e: { type: string; data: { content?: { text?: string }[] } }) =>
        e.type === "user/message" && e.data.content?.[0]?.text === "hello 1",
    ),
  );
});
