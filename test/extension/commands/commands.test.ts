import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import { activate, deactivate } from "../../../extension/activate";
import { useSeams } from "../../../extension/seams";
import type { SessionNode } from "../../../extension/sessions/nodes";
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

const active = (root: string, id: string) =>
  readFileSync(join(root, ".downcity", "agents", "code", "sessions", id, "messages", "active.jsonl"), "utf8");

async function start(t: { after(fn: () => unknown): void }, root: string) {
  setFolders([folder(root, 0, "proj")]);
  const { factory, made } = countingFactory();
  const context = fakeContext();
  const opened: string[] = [];
  const host =
    (useSeams({
      factory,
      env: {},
      openInChat: async (_f, ref) => void opened.push(ref.sessionId),
      restAtOnce: true,
    }),
    await activate(context));
  await host.tree.ready;
  t.after(async () => {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  });
  return { host, made, opened, context };
}

test("every command works from the palette (a quick pick of sessions, newest first) and its effect is in the tree and on disk", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 3);
  const { host, made, opened } = await start(t, root);
  const entry = host.runtimes.all()[0]!;
  const node = (id: string) => host.tree.find(entry, "code", id);

  // New Session offers the agents.
  const agentPicks = answer("showQuickPick", async (items: any[]) => items.find((i) => i.id === "ask"));
  await vscode.commands.executeCommand("downcity.newSession");
  assert.deepEqual(
    (await agentPicks[0]![0]).map((i: any) => i.label),
    ["Code", "Ask"],
  );
  assert.equal(opened.length, 1);
  assert.ok(host.tree.find(entry, "ask", opened[0]!), "the new session is in the tree at once");

  // Rename from the palette: the pick lists sessions newest first, by title.
  let shown: string[] = [];
  answer("showQuickPick", async (items: any[], options: any) => {
    shown = items.map((i) => i.label);
    assert.equal(options.matchOnDescription, true);
    return items.find((i) => i.label === "Stored 1");
  });
  answer("showInputBox", async () => "  My title ");
  await vscode.commands.executeCommand("downcity.renameSession");
  assert.deepEqual(shown.slice(-3), ["Stored 2", "Stored 1", "Stored 0"]);
  assert.equal(node("session-1")!.item.title, "My title");
  assert.match(active(root, "session-1"), /"type":"session\/title".*"My title".*"kind":"user"/);

  // Fork (whole) from a tree item: a new session on disk, opened in the chat.
  answer("showQuickPick", async (items: any[]) => items[0]);
  await vscode.commands.executeCommand("downcity.forkSession", node("session-2"));
  const forkId = opened.at(-1)!;
  assert.ok(node(forkId), "the fork is in the tree");
  assert.ok(existsSync(join(root, ".downcity", "agents", "code", "sessions", forkId)));

  // Fork from a user message of a one-message session: nothing precedes it, so it says so
  // instead of showing an empty pick, and makes no session.
  const how = answer("showQuickPick", async (items: any[]) => items.find((i) => i.whole === false));
  const told = answer("showInformationMessage", async () => undefined);
  const sessionsBefore = opened.length;
  await vscode.commands.executeCommand("downcity.forkSession", node("session-1"));
  assert.equal(how.length, 1, "no second (empty) pick of messages");
  assert.match(told[0]![0], /no user message with history before it/);
  assert.equal(opened.length, sessionsBefore);

  // Archive / unarchive from the tree; unarchive from the palette offers archived ones only.
  await vscode.commands.executeCommand("downcity.archiveSession", node("session-0"));
  assert.equal(node("session-0")!.item.archived, true);
  assert.ok(existsSync(join(root, ".downcity", "agents", "code", "archived", "session-0")));
  answer("showQuickPick", async (items: any[]) => ((shown = items.map((i) => i.label)), items[0]));
  await vscode.commands.executeCommand("downcity.unarchiveSession");
  assert.deepEqual(shown, ["Stored 0"]);
  assert.equal(node("session-0")!.item.archived, false);

  // Delete asks with a modal dialog; "Cancel" keeps it, "Delete" removes it.
  const asked = answer("showWarningMessage", async () => undefined);
  await vscode.commands.executeCommand("downcity.deleteSession", node("session-2"));
  assert.equal(asked[0]![1].modal, true);
  assert.ok(node("session-2"));
  answer("showWarningMessage", async () => "Delete");
  await vscode.commands.executeCommand("downcity.deleteSession", node("session-2"));
  assert.equal(node("session-2"), undefined);
  assert.ok(!existsSync(join(root, ".downcity", "agents", "code", "sessions", "session-2")));

  // Export to Markdown through the save dialog.
  const target = join(root, "out.md");
  answer("showQuickPick", async (items: any[]) => items.find((i) => i.format === "md"));
  answer("showSaveDialog", async () => vscode.Uri.file(target));
  await vscode.commands.executeCommand("downcity.exportSession", node("session-1"));
  const md = readFileSync(target, "utf8");
  assert.match(md, /^# My title/);
  assert.match(md, /question 1/);

  // Show Session Files reveals the session's folder.
  const revealed: string[] = [];
  const reg = vscode.commands.registerCommand("revealInExplorer", (uri: vscode.Uri) => void revealed.push(uri.fsPath));
  t.after(() => reg.dispose());
  await vscode.commands.executeCommand("downcity.showSessionFiles", node("session-1"));
  assert.deepEqual(revealed, [join(root, ".downcity", "agents", "code", "sessions", "session-1")]);

  // Nothing above listed the store again.
  assert.equal(made[0]!.lists, 4, "the two first pages (live, archived) and the two full lists");
});

test("errors name what failed and offer an action; Restricted Mode refuses Compact Now with a clear message", async (t) => {
  const root = tempDir(t);
  await storeSessions(root, 1);
  const { host } = await start(t, root);
  const node = host.tree.sessions()[0] as SessionNode;
  (vscode.workspace as { isTrusted: boolean }).isTrusted = false;
  t.after(() => void ((vscode.workspace as { isTrusted: boolean }).isTrusted = true));
  const errors = answer("showErrorMessage", async () => undefined);
  await vscode.commands.executeCommand("downcity.compactSession", node);
  assert.match(
    errors[0]![0],
    /^Downcity: Compact Now failed: Nothing runs in Restricted Mode: this workspace is not trusted/,
  );
  assert.deepEqual(errors[0]!.slice(1), ["Manage Workspace Trust"]);

  // Trusted, but no provider configured: the failure offers Select Model.
  (vscode.workspace as { isTrusted: boolean }).isTrusted = true;
  await vscode.commands.executeCommand("downcity.compactSession", node);
  assert.match(errors[1]![0], /^Downcity: Compact Now failed: /);
  assert.ok(errors[1]!.includes("Select Model"), `offered: ${errors[1]!.slice(1).join(", ")}`);
  void fake;
});
