import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import { McpServers } from "../../../extension/mcp/servers";
import * as fake from "../../support/vscode-fake";
import { tempDir } from "../../support/temp";
import { fixtureServer } from "../../mcp/helpers";
import { fakeContext, folder } from "../../support/extension/helpers";

type Fn = (...args: any[]) => any;
const win = vscode.window as unknown as Record<string, Fn>;
const ws = vscode.workspace as unknown as Record<string, any>;

/** Replaces a window function for one test. */
function stub(t: { after(fn: () => unknown): void }, name: string, fn: Fn): void {
  const before = win[name];
  win[name] = fn;
  t.after(() => (win[name] = before!));
}

function workspace(t: { after(fn: () => unknown): void }, servers: Record<string, unknown>, inputs?: unknown[]) {
  const root = tempDir(t);
  mkdirSync(join(root, ".vscode"));
  writeFileSync(join(root, ".vscode", "mcp.json"), JSON.stringify({ servers, ...(inputs ? { inputs } : {}) }));
  const f = folder(root);
  const before = ws.getWorkspaceFolder;
  ws.getWorkspaceFolder = (uri: vscode.Uri) => (uri.fsPath.startsWith(root) ? f : undefined);
  t.after(() => (ws.getWorkspaceFolder = before));
  return { root, f };
}

function servers(t: { after(fn: () => unknown): void }, context = fakeContext()) {
  // The fixture server is a tsx child: on 2 busy cores its start can pass the product's 3 s first-run wait.
  fake.settings["downcity.mcp.firstRunWaitSeconds"] = 60;
  t.after(() => delete fake.settings["downcity.mcp.firstRunWaitSeconds"]);
  const output: string[] = [];
  const waiters: { line: string; resolve(): void }[] = [];
  const s = new McpServers(context, {
    appendLine: (l: string) => {
      output.push(l);
      for (const w of waiters.filter((w) => w.line === l)) w.resolve();
    },
    show() {},
    dispose() {},
  } as unknown as vscode.OutputChannel);
  t.after(() => s.dispose());
  /** Resolves once `line` reached the channel: stderr and the stdio replies are separate pipes, so it can come after them. */
  const seen = (line: string, ms = 10_000) =>
    output.includes(line)
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), ms);
          waiters.push({ line, resolve: () => (clearTimeout(timer), resolve(true)) });
        });
  return { s, output, context, seen };
}

test("Restricted Mode starts no MCP server and asks nothing", async (t) => {
  const { f } = workspace(t, { fx: fixtureServer() });
  ws.isTrusted = false;
  t.after(() => (ws.isTrusted = true));
  const asked: string[] = [];
  stub(t, "showWarningMessage", async (m: string) => (asked.push(m), "Allow"));
  const { s } = servers(t);
  assert.deepEqual(await s.tools(f), { tools: [], notices: [] });
  assert.deepEqual(asked, []);
  assert.equal((await s.folder(f))!.manager.status()[0]!.state, "stopped");
});

test("a folder's mcp.json server asks once in a modal showing its command line; the consent is remembered per folder", async (t) => {
  const { f } = workspace(t, { fx: fixtureServer() });
  const asked: { message: string; options: { modal?: boolean; detail?: string } }[] = [];
  stub(
    t,
    "showWarningMessage",
    async (message: string, options: { modal?: boolean; detail?: string }) => (
      asked.push({ message, options }),
      "Allow"
    ),
  );
  const first = servers(t);
  const { tools } = await first.s.tools(f);
  assert.ok(tools.some((x) => x.name === "mcp__fx__ok"));
  assert.equal(asked.length, 1);
  assert.equal(asked[0]!.message, 'Start the MCP server "fx" from .vscode/mcp.json?');
  assert.equal(asked[0]!.options.modal, true);
  assert.match(asked[0]!.options.detail!, /It runs:\n.*mcp-fixture-server\.ts/);
  assert.ok(await first.seen("[fx] fixture: ready"), "the server's stderr reaches the Downcity MCP channel");

  // A new window on the same folder (same workspaceState): no second question.
  const second = servers(t, first.context);
  assert.ok((await second.s.tools(f)).tools.length > 0);
  assert.equal(asked.length, 1);
});

test("declined: nothing starts and the chat is told nothing; an edited mcp.json (watched) is read again", async (t) => {
  const { root, f } = workspace(t, { fx: fixtureServer() });
  stub(t, "showWarningMessage", async () => undefined);
  const { s } = servers(t);
  assert.deepEqual((await s.tools(f)).tools, []);
  writeFileSync(
    join(root, ".vscode", "mcp.json"),
    JSON.stringify({ servers: { fx: fixtureServer(), other: fixtureServer({ X: "1" }) } }),
  );
  const changed = new Promise<void>((done) =>
    s.onDidChange(() => (s.all()[0]!.manager.status().length === 2 ? done() : undefined)),
  );
  fake.created.watchers.at(-1)!.fire("change", vscode.Uri.file(join(root, ".vscode", "mcp.json")));
  await changed;
  assert.deepEqual(
    s
      .all()[0]!
      .manager.status()
      .map((x) => x.name),
    ["fx", "other"],
  );
});

test("an input is asked once (password box), kept in SecretStorage, never in the output channel", async (t) => {
  const { f } = workspace(t, { fx: fixtureServer({ API_KEY: "${input:key}" }) }, [
    { id: "key", description: "API key", password: true },
  ]);
  stub(t, "showWarningMessage", async () => "Allow");
  const boxes: { password?: boolean }[] = [];
  stub(t, "showInputBox", async (o: { password?: boolean }) => (boxes.push(o), "s3cret-key"));
  const first = servers(t);
  const { tools } = await first.s.tools(f);
  const env = tools.find((x) => x.name === "mcp__fx__env")!;
  const out = await env.execute({ name: "API_KEY" }, { root: "/", signal: new AbortController().signal });
  assert.equal(out.content[0]!.type === "text" && out.content[0]!.text, "s3cret-key");
  assert.deepEqual(
    boxes.map((b) => b.password),
    [true],
  );
  assert.ok(
    [...(first.context.secrets as unknown as { values: Map<string, string> }).values.values()].includes("s3cret-key"),
  );
  assert.ok(!first.output.some((l) => l.includes("s3cret-key")));
  const second = servers(t, first.context);
  await second.s.tools(f);
  assert.equal(boxes.length, 1, "asked once: the next window reads SecretStorage");
});

test("a folder's part (forFolder) hands its runtime the folder's tools, and disposing it stops the folder's servers", async (t) => {
  const { f } = workspace(t, { fx: fixtureServer() });
  stub(t, "showWarningMessage", async () => "Allow");
  const { s } = servers(t);
  const part = s.forFolder(f);
  assert.ok((await part.tools()).tools.some((x) => x.name === "mcp__fx__ok"));
  const { manager } = s.all()[0]!;
  assert.equal(manager.status()[0]!.state, "running");
  await part.dispose();
  assert.equal(manager.status()[0]!.state, "stopped");
  assert.deepEqual(s.all(), [], "the folder is forgotten: added again, its configuration is read anew");
});
