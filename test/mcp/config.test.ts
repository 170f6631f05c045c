import assert from "node:assert/strict";
import { test } from "node:test";
import {
  inputIdsOf,
  launchFingerprint,
  launchLine,
  mergeMcpConfigs,
  parseMcpConfig,
  substitute,
} from "../../core/mcp/config";
import { mcpToolName } from "../../core/mcp/names";
import { checkInputSchema } from "../../core/mcp/schema";
import { USER, WORKSPACE } from "./helpers";

test("VS Code's mcp.json format: stdio by command, http by url, sse by type; a broken entry is reported and the others load", () => {
  const parsed = parseMcpConfig(
    {
      servers: {
        fs: {
          type: "stdio",
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-filesystem", "${workspaceFolder}"],
          env: { TOKEN: "${input:token}" },
        },
        web: { url: "http://127.0.0.1:3001/mcp", headers: { Authorization: "Bearer ${input:token}" } },
        legacy: { type: "sse", url: "http://127.0.0.1:3001/sse" },
        broken: { type: "stdio" },
        odd: { type: "websocket", url: "ws://x" },
        file: { url: "file:///etc/passwd" },
      },
      inputs: [{ type: "promptString", id: "token", description: "API token", password: true }],
    },
    WORKSPACE,
  );
  assert.deepEqual(
    parsed.servers.map((s) => s.name),
    ["fs", "web", "legacy"],
  );
  assert.deepEqual(
    parsed.problems.map((p) => p.server),
    ["broken", "odd", "file"],
  );
  assert.match(parsed.problems[0]!.message, /command/);
  assert.match(parsed.problems[1]!.message, /unknown type 'websocket'/);
  assert.match(parsed.problems[2]!.message, /http\(s\)/);
  assert.equal(parsed.servers[0]!.inputs[0]!.id, "token");
  assert.deepEqual(inputIdsOf(parsed.servers[0]!.config), ["token"]);
  assert.equal(
    launchLine(parsed.servers[0]!.config),
    "npx -y @modelcontextprotocol/server-filesystem ${workspaceFolder}",
  );
  assert.equal(launchLine(parsed.servers[1]!.config), "http://127.0.0.1:3001/mcp");
});

test("not a config at all: one clear problem, no server", () => {
  const parsed = parseMcpConfig({ servers: [1, 2] }, WORKSPACE);
  assert.equal(parsed.servers.length, 0);
  assert.match(parsed.problems[0]!.message, /not a valid MCP configuration/);
});

test("variables are substituted at start only; an input without a value is an error naming it", () => {
  const [fs] = parseMcpConfig(
    {
      servers: {
        fs: { command: "srv", args: ["${workspaceFolder}/x", "${env:HOME_X}"], env: { K: "${input:key}", DROP: null } },
      },
    },
    USER,
  ).servers;
  const out = substitute(fs!.config, {
    workspaceFolder: "/w",
    env: { HOME_X: "/h" },
    inputs: new Map([["key", "s3cret"]]),
  });
  assert.deepEqual(out, { command: "srv", args: ["/w/x", "/h"], env: { K: "s3cret", DROP: null } });
  assert.throws(
    () => substitute(fs!.config, { workspaceFolder: "/w", env: {}, inputs: new Map() }),
    /input 'key' has no value/,
  );
});

test("the fingerprint changes with what a server runs, so consent is asked again", () => {
  const a = parseMcpConfig({ servers: { s: { command: "a", args: ["1"] } } }, WORKSPACE).servers[0]!;
  const b = parseMcpConfig({ servers: { s: { command: "a", args: ["2"] } } }, WORKSPACE).servers[0]!;
  const a2 = parseMcpConfig({ servers: { s: { command: "a", args: ["1"] } } }, WORKSPACE).servers[0]!;
  assert.notEqual(launchFingerprint(a), launchFingerprint(b));
  assert.equal(launchFingerprint(a), launchFingerprint(a2));
});

test("a later source's server of the same name wins", () => {
  const merged = mergeMcpConfigs([
    parseMcpConfig({ servers: { s: { command: "user" }, u: { command: "u" } } }, USER),
    parseMcpConfig({ servers: { s: { command: "ws" } } }, WORKSPACE),
  ]);
  assert.deepEqual(
    merged.servers.map((s) => [s.name, s.source.kind]),
    [
      ["u", "user"],
      ["s", "workspace"],
    ],
  );
});

test("tool names are namespaced by server and kept within providers' rules, distinct when cleaned", () => {
  assert.equal(mcpToolName("everything", "echo"), "mcp__everything__echo");
  const cleaned = mcpToolName("my.server", "get-sum");
  assert.match(cleaned, /^mcp__my_server__get-sum_[0-9a-f]{8}$/);
  assert.notEqual(mcpToolName("a.b", "t"), mcpToolName("a_b", "t"));
  const long = mcpToolName("s".repeat(40), "t".repeat(40));
  assert.ok(long.length <= 64);
  assert.match(long, /^[a-zA-Z0-9_-]+$/);
  assert.notEqual(long, mcpToolName("s".repeat(40), `${"t".repeat(39)}u`));
});

test("a schema is checked: object schemas compile and validate arguments; malformed ones say why", () => {
  const good = checkInputSchema({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: { n: { type: "number" } },
    required: ["n"],
  });
  assert.ok(good.ok);
  assert.equal("$schema" in good.schema, false);
  assert.equal(good.parameters.safeParse({ n: 1 }).success, true);
  const bad = good.parameters.safeParse({ n: "one" });
  assert.equal(bad.success, false);
  const notObject = checkInputSchema({ type: "string" });
  assert.ok(!notObject.ok && /"type": "object"/.test(notObject.reason));
  const malformed = checkInputSchema({ type: "object", properties: { n: { type: "integr" } } });
  assert.ok(!malformed.ok && /malformed/.test(malformed.reason));
  assert.ok(!checkInputSchema(null).ok);
});

test("mcp.json is read as VS Code writes it: comments and trailing commas; a broken file is one problem", async (t) => {
  const { parseJsonc } = await import("../../core/mcp/jsonc");
  const { readMcpFile } = await import("../../core/mcp/files");
  const { tempDir } = await import("../support/temp");
  const { writeFileSync } = await import("node:fs");
  const { join } = await import("node:path");
  assert.deepEqual(
    parseJsonc(
      '{ // a comment\n "servers": { "a": { "url": "http://x//y", /* inline */ "headers": { "k": "v", }, }, }, }',
    ),
    {
      servers: { a: { url: "http://x//y", headers: { k: "v" } } },
    },
  );
  assert.deepEqual(parseJsonc('{"s": "a \\" // not a comment"}'), { s: 'a " // not a comment' });
  const dir = tempDir(t);
  assert.deepEqual(await readMcpFile(join(dir, "missing.json"), WORKSPACE), { servers: [], problems: [] });
  writeFileSync(join(dir, "bad.json"), "{ servers: }");
  const bad = await readMcpFile(join(dir, "bad.json"), WORKSPACE);
  assert.equal(bad.servers.length, 0);
  assert.match(bad.problems[0]!.message, /^\.vscode\/mcp\.json is not valid JSON/);
});
