// The extension as VS Code sees it (issue 11's names are a contract). Skipped while the
// extension has no entry point yet (package.json without "main").
import * as assert from "node:assert/strict";
import { suite, suiteSetup, test } from "mocha";
import * as vscode from "vscode";

const EXTENSION_ID = "downcity.downcity-vscode";
const COMMANDS = [
  "downcity.newSession",
  "downcity.openSession",
  "downcity.renameSession",
  "downcity.forkSession",
  "downcity.archiveSession",
  "downcity.unarchiveSession",
  "downcity.deleteSession",
  "downcity.exportSession",
  "downcity.compactSession",
  "downcity.cancelRun",
  "downcity.setApiKey",
  "downcity.selectModel",
  "downcity.showSessionFiles",
  "downcity.restoreToMessage",
  "downcity.undoRestore",
];

suite("Downcity extension", function () {
  let extension: vscode.Extension<unknown>;

  suiteSetup(function () {
    const found = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(found, `${EXTENSION_ID} is not the extension under development`);
    extension = found;
    if (!extension.packageJSON.main) this.skip();
  });

  test("activates lazily, never on *", () => {
    const events: string[] = extension.packageJSON.activationEvents ?? [];
    assert.ok(!events.includes("*"), "activationEvents must not contain *");
    assert.deepEqual(extension.packageJSON.extensionKind, ["workspace"]);
  });

  test("contributes the downcity container with the chat and sessions views", () => {
    const { viewsContainers, views } = extension.packageJSON.contributes;
    const container = viewsContainers.activitybar.find((c: { id: string }) => c.id === "downcity");
    assert.equal(container?.title, "Downcity");
    assert.deepEqual(views.downcity.map((v: { id: string }) => v.id).sort(), ["downcity.chat", "downcity.sessions"]);
  });

  test("activates when the Sessions view opens and registers every command", async () => {
    await vscode.commands.executeCommand("downcity.sessions.focus");
    await extension.activate();
    assert.ok(extension.isActive);
    const registered = new Set(await vscode.commands.getCommands(true));
    assert.deepEqual(
      COMMANDS.filter((c) => !registered.has(c)),
      [],
    );
  });

  test("lists every command under the Downcity category", () => {
    const contributed: { command: string; category?: string }[] = extension.packageJSON.contributes.commands;
    for (const id of COMMANDS) {
      const entry = contributed.find((c) => c.command === id);
      assert.equal(entry?.category, "Downcity", `${id} category`);
    }
  });
});
