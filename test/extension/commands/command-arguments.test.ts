import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import { activate, deactivate } from "../../../extension/activate";
import { useSeams } from "../../../extension/seams";
import type { CommandSessionRef } from "../../../extension/commands/session-commands";
import { secretKey } from "../../../extension/config/providers";
import * as fake from "../../support/vscode-fake";
import { tempDir } from "../../support/temp";
import {
  answer,
  countingFactory,
  fakeContext,
  folder,
  setFolders,
  storeSessions,
} from "../../support/extension/helpers";

const KEY = "sk-argument-path-4b1d";
const PROMPTS = ["showQuickPick", "showInputBox", "showSaveDialog", "showWarningMessage"] as const;

/** Every prompt records its calls and answers nothing: a command given its answers must ask none. */
function recordPrompts() {
  const asked = Object.fromEntries(PROMPTS.map((name) => [name, answer(name, async () => undefined)])) as Record<
    (typeof PROMPTS)[number],
    any[][]
  >;
  const errors = answer("showErrorMessage", async () => undefined);
  return { asked, errors, none: () => PROMPTS.filter((name) => asked[name].length > 0) };
}

async function start(t: { after(fn: () => unknown): void }, root: string) {
  setFolders([folder(root, 0, "proj")]);
  fake.settings["downcity.providers"] = [
    { id: "one", protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", model: "m1", contextWindow: 8000 },
    { id: "two", protocol: "anthropic-messages", model: "m2" },
  ];
  const context = fakeContext();
  const opened: string[] = [];
  useSeams({
    factory: countingFactory().factory,
    env: {},
    openInChat: async (_f, ref) => void opened.push(ref.sessionId),
    restAtOnce: true,
  });
  const host = await activate(context);
  await host.tree.ready;
  t.after(async () => {
    delete fake.settings["downcity.providers"];
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  });
  const entry = host.runtimes.all()[0]!;
  const ref = (sessionId: string) => ({ folder: vscode.Uri.file(root), agentId: "code", sessionId });
  return { host, context, opened, ref, node: (id: string, agentId = "code") => host.tree.find(entry, agentId, id) };
}

const active = (root: string, id: string) =>
  readFileSync(join(root, ".downcity", "agents", "code", "sessions", id, "messages", "active.jsonl"), "utf8");

test("answers given as arguments skip their prompts; the effect is the one the prompts would give", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 3);
  const { host, context, opened, ref, node } = await start(t, root);
  const prompts = recordPrompts();

  const made = await vscode.commands.executeCommand<CommandSessionRef>("downcity.newSession", {
    folder: root,
    agentId: "ask",
  });
  assert.deepEqual(made, { folder: vscode.Uri.file(root).toString(), agentId: "ask", sessionId: opened.at(-1) });
  assert.ok(node(made!.sessionId, "ask"));

  // Target and answers in two arguments, or in one (a keybinding's `args`).
  await vscode.commands.executeCommand("downcity.renameSession", ref("session-0"), { title: " Two args " });
  assert.equal(node("session-0")!.item.title, "Two args");
  await vscode.commands.executeCommand("downcity.renameSession", { ...ref("session-1"), title: "One object" });
  assert.match(active(root, "session-1"), /"type":"session\/title".*"One object".*"kind":"user"/);

  const whole = await vscode.commands.executeCommand<CommandSessionRef>("downcity.forkSession", ref("session-1"), {
    whole: true,
  });
  assert.equal(node(whole!.sessionId)!.item.messageCount, 1);
  assert.equal(opened.at(-1), whole!.sessionId);
  const early = await vscode.commands.executeCommand<CommandSessionRef>("downcity.forkSession", ref("session-1"), {
    atSeq: 1,
  });
  assert.equal(node(early!.sessionId)!.item.messageCount, 1);

  const md = join(root, "t.md");
  const written = await vscode.commands.executeCommand<vscode.Uri>("downcity.exportSession", ref("session-1"), {
    format: "md",
    uri: vscode.Uri.file(md),
  });
  assert.equal(written!.fsPath, md);
  assert.match(readFileSync(md, "utf8"), /^# One object/);
  // The format follows from a path's extension.
  await vscode.commands.executeCommand("downcity.exportSession", ref("session-1"), { uri: join(root, "t.jsonl") });
  assert.equal(JSON.parse(readFileSync(join(root, "t.jsonl"), "utf8").split("\n")[0]!).type, "user/message");

  await vscode.commands.executeCommand("downcity.deleteSession", ref("session-2"), { confirmed: true });
  assert.equal(node("session-2"), undefined);
  assert.ok(!existsSync(join(root, ".downcity", "agents", "code", "sessions", "session-2")));

  await vscode.commands.executeCommand("downcity.setApiKey", { profileId: "two", key: ` ${KEY} ` });
  assert.equal(context.secrets.values.get(secretKey("two")), KEY);
  assert.deepEqual(
    await vscode.commands.executeCommand("downcity.selectModel", { profileId: "one", model: "listed" }),
    { provider: "one", model: "listed" },
  );
  assert.deepEqual(await vscode.commands.executeCommand("downcity.selectModel", { profileId: "one" }), {
    provider: "one",
    model: "m1",
    contextWindow: 8000,
  });
  assert.deepEqual(host.config.selection(), { provider: "one", model: "m1", contextWindow: 8000 });

  // The chat names a folder by its key (the URI string): its Export button passes that ref.
  const chatRef = { folderKey: vscode.Uri.file(root).toString(), agentId: "code", sessionId: "session-0" };
  await vscode.commands.executeCommand("downcity.exportSession", chatRef, { uri: join(root, "chat.md") });
  assert.match(readFileSync(join(root, "chat.md"), "utf8"), /^# Two args/);

  assert.deepEqual(prompts.none(), []);
  assert.deepEqual(prompts.errors, []);
});

test("what the arguments leave out is still asked; Delete with a target but no confirmed: true still asks in a modal", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 2);
  const { ref, node } = await start(t, root);
  const prompts = recordPrompts();

  // A keybinding's { title } alone: the session is picked, the title is not asked.
  answer("showQuickPick", async (items: any[]) => items.find((i) => i.label === "Stored 1"));
  const inputs = answer("showInputBox", async () => "unused");
  await vscode.commands.executeCommand("downcity.renameSession", { title: "Picked, then renamed" });
  assert.equal(node("session-1")!.item.title, "Picked, then renamed");
  assert.equal(inputs.length, 0);

  // { format } alone: the save dialog is shown with that format's filter, the format pick is not.
  const picks = answer("showQuickPick", async () => undefined);
  const dialogs = answer("showSaveDialog", async () => vscode.Uri.file(join(root, "asked.jsonl")));
  await vscode.commands.executeCommand("downcity.exportSession", ref("session-0"), { format: "jsonl" });
  assert.equal(picks.length, 0);
  assert.deepEqual(dialogs[0]![0].filters, { "JSON Lines": ["jsonl"] });
  assert.ok(existsSync(join(root, "asked.jsonl")));

  // Delete: a ref (or a tree row) is not a confirmation; "Cancel" keeps the session.
  const modal = answer("showWarningMessage", async () => undefined);
  await vscode.commands.executeCommand("downcity.deleteSession", ref("session-0"));
  await vscode.commands.executeCommand("downcity.deleteSession", ref("session-0"), { confirmed: false });
  assert.equal(modal.length, 2);
  assert.equal(modal[0]![1].modal, true);
  assert.ok(node("session-0"));
  assert.deepEqual(prompts.errors, []);
});

test("bad arguments fail with a message naming them, change nothing, and never echo the key", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 1);
  const { context, ref, node } = await start(t, root);
  const prompts = recordPrompts();
  const cases: [string, unknown[], RegExp][] = [
    [
      "downcity.renameSession",
      [ref("session-0"), { titel: "typo" }],
      /^Downcity: Rename Session failed: invalid arguments: unknown argument titel$/,
    ],
    [
      "downcity.renameSession",
      [ref("session-0"), { title: "   " }],
      /invalid arguments: title: The title cannot be empty/,
    ],
    [
      "downcity.forkSession",
      [ref("session-0"), { whole: true, atSeq: 1 }],
      /invalid arguments: give whole or atSeq, not both/,
    ],
    ["downcity.forkSession", [ref("session-0"), { atSeq: 99 }], /Fork Session failed: fork point 99 is outside 1\.\.2/],
    ["downcity.exportSession", [ref("session-0"), { format: "pdf" }], /invalid arguments: format: /],
    ["downcity.deleteSession", [ref("session-0"), "yes"], /the second argument must be an object of answers/],
    [
      "downcity.openSession",
      [{ folder: root, folderKey: "x", agentId: "code", sessionId: "session-0" }],
      /exactly one of folder, folderKey/,
    ],
    [
      "downcity.openSession",
      [{ folder: join(root, "elsewhere"), agentId: "code", sessionId: "session-0" }],
      /no workspace folder .*elsewhere is open/,
    ],
    ["downcity.newSession", [{ folder: root, agentId: "nobody" }], /no agent "nobody" in proj \(agents: code, ask\)/],
    ["downcity.setApiKey", [{ profileId: "three", key: KEY }], /no provider profile "three" \(profiles: one, two\)/],
    ["downcity.setApiKey", [{ profileId: "one", key: "  " }], /invalid arguments: key: The key cannot be empty/],
    ["downcity.setApiKey", [{ profileId: "one", key: 42 }], /invalid arguments: key: /],
    ["downcity.selectModel", [{ model: "m9" }], /name the profileId: the provider profiles are one, two/],
  ];
  for (const [command, args, expected] of cases) {
    const before = prompts.errors.length;
    assert.equal(await vscode.commands.executeCommand(command, ...args), undefined, command);
    assert.equal(prompts.errors.length, before + 1, `${command} reported no failure`);
    assert.match(prompts.errors.at(-1)![0], expected);
  }
  assert.deepEqual(prompts.none(), []);
  assert.equal(node("session-0")!.item.title, "Stored 0");
  assert.equal(node("session-0")!.item.messageCount, 1);
  assert.deepEqual([...context.secrets.values.keys()], []);
  assert.ok(!prompts.errors.some((args) => JSON.stringify(args).includes(KEY)), "a failure showed the key");
});

test("a failed command returns at once: the caller does not wait for the user to dismiss the error", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 1);
  const { ref } = await start(t, root);
  const shown = answer("showErrorMessage", () => new Promise(() => {}));
  assert.equal(
    await vscode.commands.executeCommand("downcity.renameSession", ref("session-0"), { title: "" }),
    undefined,
  );
  assert.equal(shown.length, 1);
});
