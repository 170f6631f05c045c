import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import type { ToolUpdate } from "../../../core/protocol/tool-details";
import { ToolRegistry } from "../../../core/tools/registry";
import { startProviderServer, wire } from "../../support/provider-server";
import { tempDir } from "../../support/temp";
import { withTimeout } from "../../support/with-timeout";
import * as fake from "../../support/vscode-fake";
import { fakeTerminal, type FakeTerminal } from "../../support/vscode-fake/editor";
import { activateWithEnvProvider, answer, configure } from "../../support/extension/helpers";
import { groupGone, groupMembers } from "./helpers";

/** The extension activated on one folder, its commands run without asking, every terminal it makes recorded. */
async function start(t: { after(fn: () => unknown): void }, command: string) {
  const terminals: FakeTerminal[] = [];
  const saved = fake.window.createTerminal;
  fake.window.createTerminal = (options: { name: string; pty: unknown }) => fakeTerminal(options, terminals);
  t.after(() => (saved ? (fake.window.createTerminal = saved) : delete fake.window.createTerminal));
  // Each turn: the model runs `command`, then answers once it has the result.
  const server = await startProviderServer(({ body }) => {
    const last = body?.messages?.at(-1);
    return last?.role === "tool"
      ? { sse: wire.openaiChat({ text: "done" }) }
      : { sse: wire.openaiChat({ toolCalls: [{ id: "c1", name: "run_command", arguments: { command } }] }) };
  });
  t.after(() => server.close());
  configure({ "downcity.approval.commands": "auto" });
  t.after(() => configure({ "downcity.approval.commands": undefined }));
  const root = tempDir(t);
  const { host } = await activateWithEnvProvider(t, root, server.baseURL);
  const entry = host.runtimes.all()[0]!;
  const errors = answer("showErrorMessage", async () => undefined);
  const ref = (sessionId: string) => ({ folder: vscode.Uri.file(root), agentId: "code", sessionId });
  /** A new session of agent `code` that ran one turn. */
  const ranOnce = async () => {
    const session = entry.runtime.create("code");
    await entry.runtime.prompt({ agentId: "code", sessionId: session.id }, "run it");
    return session.id;
  };
  return { root, entry, terminals, errors, ref, ranOnce };
}

const gone = (terminal: FakeTerminal) => withTimeout(terminal.gone, 5_000, `${terminal.name} disposed`);

test("deleting or archiving a session closes its command terminal; a rename keeps it", async (t) => {
  const { terminals, errors, ref, ranOnce } = await start(t, "echo hi");
  const [deleted, archived, renamed] = [await ranOnce(), await ranOnce(), await ranOnce()];
  assert.deepEqual(
    terminals.map((x) => x.name),
    [deleted, archived, renamed].map((id) => `Downcity: ${id.slice("session-".length, "session-".length + 8)}`),
    "one terminal per session, each named after its own",
  );
  for (const terminal of terminals) assert.match(terminal.output, /hi\r\n.*\[exit code 0\]/s);

  await vscode.commands.executeCommand("downcity.deleteSession", ref(deleted), { confirmed: true });
  await gone(terminals[0]!);
  await vscode.commands.executeCommand("downcity.archiveSession", ref(archived));
  await gone(terminals[1]!);
  await vscode.commands.executeCommand("downcity.renameSession", ref(renamed), { title: "Still here" });
  assert.deepEqual(errors, []);
  assert.deepEqual(
    terminals.map((x) => x.disposed),
    [true, true, false],
    "the renamed session keeps its terminal",
  );
});

test("a session deleted while its command runs: the command's process group dies and its terminal closes", async (t) => {
  const { root, entry, terminals, errors, ref, ranOnce } = await start(t, "true");
  const sessionId = await ranOnce();
  // The runtime refuses to delete a session while its own turn runs; a call it does not track (as the folder's
  // tools run it) still belongs to the session, and ends with it.
  const tools = new ToolRegistry(entry.tools!.tools());
  let output = "";
  let seen: (pgid: number) => void;
  const pgid = new Promise<number>((resolve) => (seen = resolve));
  const onUpdate = (u: ToolUpdate) => {
    output += u.text;
    const m = /group (\d+)/.exec(output);
    if (m) seen(Number(m[1]));
  };
  const ctx = { root: entry.root, signal: new AbortController().signal, agentId: "code", sessionId, onUpdate };
  const done = tools.run("run_command", { command: "sleep 30 & echo group $$; wait" }, { ...ctx, toolCallId: "x1" });
  const group = await withTimeout(pgid, 10_000, "the command's process group");
  assert.ok(groupMembers(group).length >= 2, "the shell and its background sleep run");

  await vscode.commands.executeCommand("downcity.deleteSession", ref(sessionId), { confirmed: true });
  assert.deepEqual(errors, []);
  assert.equal(existsSync(join(root, ".downcity", "agents", "code", "sessions", sessionId)), false);
  const result = await withTimeout(done, 10_000, "the command to end");
  assert.equal(result.isError, true);
  assert.equal(await groupGone(group), true, "nothing of the command's group outlives the session");
  await gone(terminals[0]!);
});

test("deleting a session while its turn runs a command is refused: the command, its terminal and the session stay", async (t) => {
  const { root, entry, terminals, errors, ref } = await start(t, "sleep 30 & echo group $$; wait");
  const session = entry.runtime.create("code");
  let output = "";
  let seen: (pgid: number) => void;
  const pgid = new Promise<number>((resolve) => (seen = resolve));
  const off = entry.runtime.onEvent((event) => {
    if (event.type !== "tool-output") return;
    output += event.update.text;
    const m = /group (\d+)/.exec(output);
    if (m) seen(Number(m[1]));
  });
  t.after(off);
  const turn = entry.runtime.prompt({ agentId: "code", sessionId: session.id }, "run it");
  const group = await withTimeout(pgid, 10_000, "the command's process group");

  await vscode.commands.executeCommand("downcity.deleteSession", ref(session.id), { confirmed: true });
  assert.equal(errors.length, 1);
  assert.match(String(errors[0]![0]), /running; stop it first/);
  assert.ok(existsSync(join(root, ".downcity", "agents", "code", "sessions", session.id)), "nothing is lost");
  assert.ok(groupMembers(group).length >= 2, "the command still runs");
  assert.equal(terminals[0]!.disposed, false);

  // Stopped, it can go, and its terminal with it.
  entry.runtime.cancel({ agentId: "code", sessionId: session.id });
  await withTimeout(turn, 10_000, "the cancelled turn");
  assert.equal(await groupGone(group), true);
  await vscode.commands.executeCommand("downcity.deleteSession", ref(session.id), { confirmed: true });
  assert.equal(errors.length, 1);
  await gone(terminals[0]!);
});
