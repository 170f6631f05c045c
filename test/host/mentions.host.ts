// Issue 25 item 3 in code-server's real extension host: each @-mention kind resolved by the
// extension's own resolver from what VS Code has (files and unsaved buffers, a folder's
// listing, the Problems panel's diagnostics, the active editor's selection, the active
// terminal's output through shell integration — or the stated reason it is unavailable),
// then sent with a prompt through a core runtime to the loopback provider, whose request
// holds each attachment's text.
import * as assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { suite, suiteSetup, suiteTeardown, test } from "mocha";
import * as vscode from "vscode";
import { settingsForPolicy } from "../../core/agent/approval";
import { withAttachments } from "../../core/mentions";
import type { ResolvedAttachment } from "../../core/protocol";
import { createWorkspaceRuntime } from "../../core/runtime/create";
import type { DowncityHost } from "../../extension/activate";
import type { ChatFolder } from "../../extension/chat/folders";
import { VscodeMentions } from "../../extension/mentions/resolve";
import { TerminalOutputs } from "../../extension/mentions/terminal-output";
import { startProviderServer, wire, type ProviderServer } from "../support/provider-server";
import { withTimeout } from "../support/with-timeout";
import { whenEvent } from "./events";
import { hostWorkspace } from "./workspace";

const EXTENSION_ID = "downcity.downcity-vscode";

suite("@-mentions resolved by the real editor", function () {
  this.timeout(60_000);
  const { folders } = hostWorkspace();
  const alpha = folders[0]!;
  const fixture = join(alpha, "mention-fixture");
  let folder: ChatFolder;
  let terminals: TerminalOutputs;
  let mentions: VscodeMentions;
  const resolved: ResolvedAttachment[] = [];

  suiteSetup(async function () {
    const extension = vscode.extensions.getExtension<DowncityHost>(EXTENSION_ID);
    if (!extension?.packageJSON.main) this.skip();
    const host = await extension!.activate();
    const entry = host.runtimes.all().find((e) => e.runtime.root === realpathSync(alpha))!;
    assert.ok(entry, "no runtime for the first folder");
    folder = { key: entry.folder.uri.toString(), name: entry.folder.name, runtime: entry.runtime };
    mkdirSync(join(fixture, "deep"), { recursive: true });
    writeFileSync(
      join(fixture, "inventory-rules.ts"),
      ["// line 1", "export const low = 3; // line 2", "export const high = 9; // line 3", "// line 4"].join("\n"),
    );
    writeFileSync(join(fixture, "deep", "note.md"), "# note\n");
    terminals = new TerminalOutputs();
    mentions = new VscodeMentions(terminals);
  });

  suiteTeardown(() => {
    mentions?.dispose();
    terminals?.dispose();
    rmSync(fixture, { recursive: true, force: true });
  });

  test("@file: fuzzy search finds the file; a line range attaches those lines; an unsaved edit is what is sent", async () => {
    const found = await mentions.search(folder, "file", "invrules");
    assert.equal(found[0], "mention-fixture/inventory-rules.ts", JSON.stringify(found));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(join(fixture, "inventory-rules.ts")));
    const editor = await vscode.window.showTextDocument(doc);
    await editor.edit((e) => e.replace(new vscode.Range(2, 0, 2, 100), "export const high = 12; // unsaved"));
    const file = await mentions.resolve(folder, {
      kind: "file",
      path: "mention-fixture/inventory-rules.ts",
      range: { start: 2, end: 3 },
    });
    assert.deepEqual(file.info, {
      kind: "file",
      label: "mention-fixture/inventory-rules.ts:2-3",
      path: "mention-fixture/inventory-rules.ts",
      range: { start: 2, end: 3 },
    });
    assert.match(file.text, /export const low = 3; \/\/ line 2\nexport const high = 12; \/\/ unsaved/);
    assert.doesNotMatch(file.text, /line 1|line 4/);
    resolved.push(file);
  });

  test("@file by a dropped file's URI; a path or URI outside the folder is refused", async () => {
    const dropped = await mentions.resolve(folder, {
      kind: "file",
      path: vscode.Uri.file(join(fixture, "deep", "note.md")).toString(),
    });
    assert.equal(dropped.info.label, "mention-fixture/deep/note.md");
    await assert.rejects(
      mentions.resolve(folder, { kind: "file", path: "../beta/README.md" }),
      /outside|escapes|not inside/i,
    );
    await assert.rejects(
      mentions.resolve(folder, { kind: "file", path: vscode.Uri.file(join(folders[1]!, "README.md")).toString() }),
      /not a file of this workspace folder/,
    );
  });

  test("@folder: the listing, folders first; folder search", async () => {
    assert.ok((await mentions.search(folder, "folder", "fixture")).includes("mention-fixture"));
    const listing = await mentions.resolve(folder, { kind: "folder", path: "mention-fixture" });
    assert.equal(listing.info.label, "mention-fixture/");
    assert.match(listing.text, /```\ndeep\/\ninventory-rules\.ts\n```/);
    resolved.push(listing);
  });

  test("@problems: the diagnostics VS Code has, with path, line and source", async () => {
    const collection = vscode.languages.createDiagnosticCollection("mentions-host-test");
    try {
      const uri = vscode.Uri.file(join(alpha, "hello.ts"));
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(1, 2, 1, 8),
        "Seeded problem for @problems",
        vscode.DiagnosticSeverity.Error,
      );
      diagnostic.source = "host-test";
      collection.set(uri, [diagnostic]);
      const problems = await mentions.resolve(folder, { kind: "problems" });
      assert.match(problems.text, /hello\.ts:2:3 error host-test: Seeded problem for @problems/);
      resolved.push(problems);
    } finally {
      collection.dispose();
    }
  });

  test("@selection: the active editor's selection with its lines; none selected is a clear refusal", async () => {
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(join(alpha, "hello.ts")));
    editor.selection = new vscode.Selection(0, 0, 1, 100);
    const selection = await mentions.resolve(folder, { kind: "selection" });
    assert.equal(selection.info.label, "Selection (hello.ts:1-2)");
    assert.match(selection.text, /export function greet\(name: string\): string \{\n {2}return "hello " \+ name;/);
    resolved.push(selection);
    editor.selection = new vscode.Selection(0, 0, 0, 0);
    await assert.rejects(mentions.resolve(folder, { kind: "selection" }), /nothing is selected/);
  });

  test("@terminal: the active terminal's last command output through shell integration, or why it is unavailable", async () => {
    const terminal = vscode.window.createTerminal({ name: "mentions-host", cwd: alpha });
    try {
      terminal.show();
      await whenEvent("the terminal to be active", vscode.window.onDidChangeActiveTerminal, () =>
        vscode.window.activeTerminal === terminal ? true : undefined,
      );
      const integrated = await whenEvent(
        "shell integration",
        vscode.window.onDidChangeTerminalShellIntegration,
        () => terminal.shellIntegration,
        15_000,
      ).catch(() => undefined);
      if (!integrated) {
        await assert.rejects(
          mentions.resolve(folder, { kind: "terminal" }),
          /@terminal is unavailable: the terminal "mentions-host" has no shell integration/,
        );
        console.log("figure: @terminal: this shell gave no shell integration; the refusal was checked instead");
        return;
      }
      let execution: vscode.TerminalShellExecution | undefined;
      const sub = vscode.window.onDidEndTerminalShellExecution((e) => void (e.execution === execution && endedOnce()));
      let endedOnce!: () => void;
      const finished = new Promise<void>((r) => (endedOnce = r));
      execution = integrated.executeCommand("echo mention-marker-$((40+2))");
      await withTimeout(finished, 20_000, "the echo to end").finally(() => sub.dispose());

      const output = await mentions.resolve(folder, { kind: "terminal" });
      assert.equal(output.info.label, "Terminal (mentions-host)");
      assert.match(output.text, /mention-marker-42/);
      resolved.push(output);
    } finally {
      terminal.dispose();
    }
  });

  test("each resolved mention, sent with a prompt, is in the provider's request", async () => {
    let provider: ProviderServer | undefined;
    const root = realpathSync(mkdtempSync(join(tmpdir(), "downcity-mentions-")));
    const runtime = createWorkspaceRuntime({
      root,
      providers: () => [{ id: "m", protocol: "openai-chat", baseURL: provider!.baseURL, apiKey: "sk-m" }],
      model: () => ({ provider: "m", model: "gpt-4o" }),
      approval: () => settingsForPolicy("none"),
      tools: () => [],
    });
    try {
      provider = await startProviderServer(() => ({ sse: wire.openaiChat({ text: "ok" }) }));
      const session = runtime.create();
      await runtime.prompt({ agentId: session.agentId, sessionId: session.id }, withAttachments("use these", resolved));
      const user = provider.requests[0]!.body.messages.find((m: { role: string }) => m.role === "user");
      const sent =
        typeof user.content === "string" ? user.content : user.content.map((p: { text: string }) => p.text).join("\n");
      assert.ok(resolved.length >= 4, `resolved ${resolved.map((r) => r.info.kind)}`);
      for (const a of resolved) assert.ok(sent.includes(a.text), `${a.info.kind} not in the request`);
    } finally {
      await runtime.close();
      await provider?.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
