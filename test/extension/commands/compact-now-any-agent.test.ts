import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { test } from "node:test";
import * as vscode from "vscode";
import { sessionPaths } from "../../../core/storage";
import { seedSessions } from "../../support/workbench/seed";
import { startProviderServer, wire } from "../../support/provider-server";
import { tempDir } from "../../support/temp";
import { activateWithEnvProvider, answer, configure } from "../../support/extension/helpers";

// The UI test's sessions are stored under the store's default agent ("default"), which the
// extension does not configure (code, ask): Compact Now from the palette failed on them
// with "unknown agent", though compaction needs only the model.
test("Compact Now from the palette compacts a session whose agent is not configured and says what it closed", async (t) => {
  const root = tempDir(t);
  await seedSessions(root, [
    {
      id: "old",
      title: "Plan the release",
      turns: ["List the open issues", "There are three.", "Which one first?", "The crash on save."],
    },
  ]);
  const server = await startProviderServer(() => ({
    sse: wire.openaiChat({ text: "The user listed the open issues: three." }),
  }));
  t.after(() => server.close());
  // Nothing kept word for word: the conversation is far under the (default) window.
  configure({ "downcity.compaction.retainRatio": 0 });
  t.after(() => configure({ "downcity.compaction.retainRatio": undefined }));
  const { host } = await activateWithEnvProvider(t, root, server.baseURL);
  assert.deepEqual(
    host.runtimes.all()[0]!.runtime.agents.map((a) => a.id),
    ["code", "ask"],
  );

  const picks = answer("showQuickPick", async (items: any[]) => items.find((i) => i.label === "Plan the release"));
  const told = answer("showInformationMessage", async () => undefined);
  const errors = answer("showErrorMessage", async () => undefined);
  await vscode.commands.executeCommand("downcity.compactSession");
  assert.equal(picks.length, 1);
  assert.deepEqual(errors, []);
  // With retainRatio 0 the retained tail is empty: all three messages before the newest answer close (the newest user message is restated).
  assert.deepEqual(
    told.map((c) => c[0]),
    ['Downcity: "Plan the release": Compacted 3 messages.'],
  );
  assert.equal(readdirSync(sessionPaths(root, "default", "old").segments).length, 1, "one segment on disk");
  assert.equal(server.requests.length, 1, "one summary request");
});
