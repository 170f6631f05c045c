import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import { ProviderConfig } from "../../../extension/config/providers";
import { RESTRICTED_REASON, FolderRegistry } from "../../../extension/folders/registry";
import { tempDir } from "../../support/temp";
import { countingFactory, fakeContext, folder, setFolders } from "../../support/extension/helpers";

function runtimesFor(folders: vscode.WorkspaceFolder[]) {
  setFolders(folders);
  const { factory, made } = countingFactory();
  const context = fakeContext();
  const config = new ProviderConfig(context.secrets, context.workspaceState, {});
  const runtimes = new FolderRegistry(factory, config);
  return { runtimes, made, config };
}

test("two workspace folders get two stores; adding and removing a folder creates and closes its runtime", async (t) => {
  const a = tempDir(t);
  const b = tempDir(t);
  const c = tempDir(t);
  const { runtimes, made } = runtimesFor([folder(a, 0), folder(b, 1)]);
  assert.deepEqual(
    runtimes.all().map((e) => e.runtime.root),
    [a, b],
  );

  // Each runtime writes its own folder's .downcity/.
  for (const { runtime } of runtimes.all()) {
    const s = runtime.create("code");
    s.append("user/message", { content: [{ type: "text", text: "hi" }] }, { surface: "append" });
  }
  await Promise.all(runtimes.all().map(async ({ runtime }) => assert.equal((await runtime.list()).length, 1)));
  await runtimes.close(); // flushes
  runtimes.dispose();
  assert.ok(existsSync(join(a, ".downcity", "agents", "code", "sessions")));
  assert.ok(existsSync(join(b, ".downcity", "agents", "code", "sessions")));

  const again = runtimesFor([folder(a, 0)]);
  const events: string[] = [];
  again.runtimes.onDidChange(({ added, removed }) => events.push(`+${added.length} -${removed.length}`));
  setFolders([folder(a, 0), folder(c, 1)]);
  assert.equal(again.made.length, 2);
  assert.equal(again.runtimes.all()[1]!.runtime.root, c);
  setFolders([folder(c, 0)]);
  assert.equal(again.made[0]!.closed, true, "the removed folder's runtime is closed");
  assert.equal(again.made[1]!.closed, false);
  assert.deepEqual(
    again.runtimes.all().map((e) => e.runtime.root),
    [c],
  );
  assert.deepEqual(events, ["+1 -0", "+0 -1"]);
  await again.runtimes.close();
  assert.equal(again.made[1]!.closed, true, "deactivate closes the rest");
  again.runtimes.dispose();
  assert.equal(made.length, 2, "a disposed registry no longer follows folder changes");
});

test("Restricted Mode: the runtime is told why nothing may run, and a run is refused with that message", async (t) => {
  const a = tempDir(t);
  (vscode.workspace as { isTrusted: boolean }).isTrusted = false;
  t.after(() => void ((vscode.workspace as { isTrusted: boolean }).isTrusted = true));
  const { runtimes, made } = runtimesFor([folder(a, 0)]);
  const options = made[0]!.options;
  assert.equal(options.restricted?.(), RESTRICTED_REASON);
  const { runtime } = runtimes.all()[0]!;
  const session = runtime.create("code");
  await assert.rejects(
    runtime.prompt({ agentId: "code", sessionId: session.id }, "hello"),
    (e: Error) => e.name === "RestrictedModeError" && /Restricted Mode: this workspace is not trusted/.test(e.message),
  );
  // Listing and reading still work.
  assert.equal((await runtime.list()).length, 1);
  // Granting trust applies at once: the runtime reads it per run.
  (vscode.workspace as { isTrusted: boolean }).isTrusted = true;
  assert.equal(options.restricted?.(), undefined);
  await runtimes.close();
  runtimes.dispose();
});

test("a second window's runtime on the same folder gets the session read-only", async (t) => {
  const a = tempDir(t);
  const first = runtimesFor([folder(a, 0)]);
  const writer = first.runtimes.all()[0]!.runtime;
  const session = writer.create("code");
  session.append("user/message", { content: [{ type: "text", text: "mine" }] }, { surface: "append" });
  await writer.list();
  // Materialise: the first window holds the writer lock.
  await writer.rename({ agentId: "code", sessionId: session.id }, "Held");

  const { factory } = countingFactory();
  const context = fakeContext();
  const second = new FolderRegistry(factory, new ProviderConfig(context.secrets, context.workspaceState, {}));
  const reader = second.all()[0]!.runtime;
  const { session: view, report } = await reader.open({ agentId: "code", sessionId: session.id });
  assert.match(report.readOnly ?? "", /elsewhere/);
  assert.match(view.readOnly ?? "", /elsewhere/);
  assert.equal(view.title.title, "Held");
  await second.close();
  await first.runtimes.close();
  second.dispose();
  first.runtimes.dispose();
});

test("a folder's record (root, runtime, tools, MCP servers, the chat's part) is made when it opens and all of it ends when it goes", async (t) => {
  const a = tempDir(t);
  const b = tempDir(t);
  setFolders([folder(a, 0, "a")]);
  const { factory, made } = countingFactory();
  const context = fakeContext();
  const config = new ProviderConfig(context.secrets, context.workspaceState, {});
  const life: string[] = [];
  const runtimes = new FolderRegistry(factory, config, {
    tools: (f, root) => {
      life.push(`tools+ ${f.name} ${root === f.uri.fsPath}`);
      return { tools: () => [], dispose: () => void life.push(`tools- ${f.name}`) };
    },
    mcp: (f) => {
      life.push(`mcp+ ${f.name}`);
      return {
        tools: async () => ({ tools: [], notices: [`mcp of ${f.name}`] }),
        dispose: async () => void life.push(`mcp- ${f.name}`),
      };
    },
  });
  t.after(() => runtimes.dispose());
  // A feature attached after the first folder opened gets a part for it at once, and for each folder after.
  const attached = runtimes.attach("chat", (entry) => {
    life.push(`chat+ ${entry.folder.name}`);
    return new vscode.Disposable(() => life.push(`chat- ${entry.folder.name}`));
  });
  assert.throws(() => runtimes.attach("chat", () => new vscode.Disposable(() => {})), /attached already/);
  setFolders([folder(a, 0, "a"), folder(b, 1, "b")]);
  const second = runtimes.get(vscode.Uri.file(b))!;
  assert.equal(second.key, vscode.Uri.file(b).toString());
  assert.equal(second.root, b);
  assert.ok(second.tools && second.mcp && second.parts.has("chat"));
  // The runtime's MCP hook is the record's own.
  assert.deepEqual((await made[1]!.options.mcpTools!()).notices, ["mcp of b"]);
  setFolders([folder(b, 0, "b")]);
  assert.equal(made[0]!.closed, true);
  assert.deepEqual(life, [
    "tools+ a true",
    "mcp+ a",
    "chat+ a",
    "tools+ b true",
    "mcp+ b",
    "chat+ b",
    "chat- a",
    "mcp- a",
    "tools- a",
  ]);
  // Detaching the feature drops its parts; the folders stay open.
  attached.dispose();
  assert.deepEqual(life.slice(9), ["chat- b"]);
  assert.equal(second.parts.size, 0);
  await runtimes.close();
  assert.deepEqual(life.slice(10), ["mcp- b", "tools- b"], "deactivate ends the last folder's MCP servers and tools");
  assert.equal(made[1]!.closed, true);
});
