// The editor-backed tools in code-server's real extension host: real documents, the real
// diff editor and undo stack, the built-in TypeScript language features, real terminals.
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  createReadStream,
  mkdirSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { suite, suiteSetup, suiteTeardown, test } from "mocha";
import * as vscode from "vscode";
import { ToolRegistry } from "../../core/tools/registry";
import type { ToolContext, ToolOutput } from "../../core/tools/types";
import { withTimeout } from "../support/with-timeout";
import { whenEvent } from "./events";
import {
  createApprover,
  createEditorTools,
  EditReviews,
  PendingDecisions,
  ProposalStore,
  type EditorTools,
} from "../../extension/tools";
import { diagnosticsWatch } from "../../extension/tools/diagnostics";
import { createEditorEditTools } from "../../extension/tools/edit-tools";
import { editorExcludes } from "../../extension/tools/excludes";

const text = (out: ToolOutput | undefined) =>
  (out?.content ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");

/** The file's error diagnostics once one with `code` is published (bounded). */
function whenError(uri: vscode.Uri, code: string, ms: number): Promise<vscode.Diagnostic> {
  const find = () =>
    vscode.languages
      .getDiagnostics(uri)
      .find(
        (d) =>
          d.severity === vscode.DiagnosticSeverity.Error &&
          String(typeof d.code === "object" ? d.code.value : d.code) === code,
      );
  return whenEvent(`error ${code} in ${uri.fsPath}`, vscode.languages.onDidChangeDiagnostics, find, ms);
}

/** Live members of a process group (zombies excluded). */
function groupMembers(pgid: number): number[] {
  return readdirSync("/proc")
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const stat = readFileSync(`/proc/${n}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return fields[0] !== "Z" && Number(fields[2]) === pgid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function holdsFiles(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/fd`).length > 0;
  } catch {
    return false;
  }
}

suite("editor-backed tools", function () {
  // The language server and terminals are slow on a loaded 2-core machine; every wait inside is bounded.
  this.timeout(90_000);
  let folder: vscode.WorkspaceFolder;
  let root: string;
  let dir: string;
  let editor: EditorTools;
  let registry: ToolRegistry;
  let outside: string;
  let n = 0;
  const ctx = (extra: Partial<ToolContext> = {}): ToolContext => ({
    root,
    signal: new AbortController().signal,
    toolCallId: `host-${++n}`,
    sessionId: "host",
    agentId: "default",
    ...extra,
  });
  const run = (name: string, args: unknown, extra?: Partial<ToolContext>) => registry.run(name, args, ctx(extra));

  /**
   * Preview, the real diff review answered by `answer` (as its title-bar actions do, on
   * this test's own set of reviews), then execute: what the agent loop does.
   */
  async function reviewed(
    name: string,
    args: Record<string, unknown>,
    answer: (reviews: EditReviews) => Promise<unknown>,
  ) {
    const c = ctx();
    const parsed = registry.parse(name, args);
    assert.ok(parsed.ok);
    const preview = await parsed.tool.preview!(parsed.args, c);
    const reviews = new EditReviews({ reason: async () => "not like this" });
    const asked = createApprover({
      folderKey: folder.uri.toString(),
      proposals: editor.proposals,
      reviews,
      decisions: new PendingDecisions(),
    })(
      {
        sessionId: "host",
        agentId: "default",
        toolCallId: c.toolCallId!,
        toolName: name,
        kind: parsed.tool.kind,
        arguments: args,
        summary: name,
        ...(preview ? { preview } : {}),
      },
      c.signal,
    );
    await answer(reviews);
    const decision = await asked;
    return decision.approved
      ? { decision, output: await registry.run(name, args, c), toolCallId: c.toolCallId! }
      : { decision, toolCallId: c.toolCallId! };
  }

  const diffTab = () =>
    vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === "downcity-proposal");

  /** The review closes its diff after the decision, without holding it: wait for the tab to go. */
  const diffClosed = () =>
    whenEvent("the review's diff to close", vscode.window.tabGroups.onDidChangeTabs, () =>
      diffTab() ? undefined : true,
    );

  suiteSetup(() => {
    folder = vscode.workspace.workspaceFolders![0]!;
    root = realpathSync(folder.uri.fsPath);
    dir = join(root, "tools-host");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    outside = realpathSync(mkdtemp());
    writeFileSync(join(outside, "secret.txt"), "outside\n");
    symlinkSync(outside, join(dir, "out-link"));
    editor = createEditorTools({
      folder,
      root,
      diagnosticsWaitMs: 15_000,
      diagnosticsQuietMs: 1_000,
      command: { killGraceMs: 500, drainMs: 500 },
    });
    registry = new ToolRegistry(editor.tools);
  });
  suiteTeardown(async () => {
    await editor.dispose();
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    rmSync(dir, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test("read_file returns the unsaved buffer of an open document", async () => {
    const file = join(dir, "buffer.ts");
    writeFileSync(file, "on disk\n");
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), "typed, unsaved\n");
    assert.ok(await vscode.workspace.applyEdit(edit));
    assert.equal(
      text(await run("read_file", { path: "tools-host/buffer.ts" })),
      "     1\ttyped, unsaved\n     2\ton disk",
    );
    assert.equal(readFileSync(file, "utf8"), "on disk\n");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  test("an accepted edit is reviewed in the diff editor, applied as one undo step and saved", async () => {
    const file = join(dir, "accept.ts");
    const original = "export const a = 1;\nexport const b = 2;\n";
    writeFileSync(file, original);
    let title: string | undefined;
    const { decision, output } = await reviewed(
      "edit_file",
      { path: "tools-host/accept.ts", edits: [{ oldText: "b = 2", newText: "b = 3" }] },
      async (reviews) => {
        const tab = await whenEvent("the diff editor", vscode.window.tabGroups.onDidChangeTabs, diffTab);
        title = tab.label;
        // The title bar's Accept passes the diff's right side.
        assert.equal(reviews.accept((tab.input as vscode.TabInputTextDiff).modified), true);
      },
    );
    assert.equal(title, "accept.ts — Proposed by Downcity");
    assert.equal(decision.approved, true);
    assert.match(text(output), /^edited tools-host\/accept.ts/);
    assert.equal(readFileSync(file, "utf8"), "export const a = 1;\nexport const b = 3;\n", "saved");
    await diffClosed();
    const doc = await vscode.workspace.openTextDocument(file);
    assert.equal(doc.isDirty, false);
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand("undo");
    assert.equal(doc.getText(), original, "one Ctrl+Z reverts the whole edit");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  });

  test("a rejected edit leaves the file unchanged and carries the user's reason", async () => {
    const file = join(dir, "reject.ts");
    writeFileSync(file, "keep\n");
    const { decision } = await reviewed(
      "write_file",
      { path: "tools-host/reject.ts", content: "gone\n" },
      async (reviews) => {
        await whenEvent("the diff editor", vscode.window.tabGroups.onDidChangeTabs, diffTab);
        return reviews.reject();
      },
    );
    assert.deepEqual(decision, { approved: false, reason: "not like this" });
    assert.equal(readFileSync(file, "utf8"), "keep\n");
    await diffClosed();
  });

  test("Undo of an applied edit restores the file on disk through the editor, once; a changed file is refused", async () => {
    const file = join(dir, "undo.ts");
    writeFileSync(file, "export const u = 1;\n");
    const { toolCallId } = await reviewed(
      "edit_file",
      { path: "tools-host/undo.ts", edits: [{ oldText: "u = 1", newText: "u = 2" }] },
      async (reviews) => {
        await whenEvent("the diff editor", vscode.window.tabGroups.onDidChangeTabs, diffTab);
        return reviews.accept();
      },
    );
    assert.equal(readFileSync(file, "utf8"), "export const u = 2;\n");
    assert.deepEqual(await editor.undoEdit({ agentId: "default", sessionId: "host", toolCallId }), {
      path: "tools-host/undo.ts",
    });
    assert.equal(readFileSync(file, "utf8"), "export const u = 1;\n", "back on disk");
    const doc = await vscode.workspace.openTextDocument(file);
    assert.equal(doc.isDirty, false, "saved");
    await assert.rejects(editor.undoEdit({ agentId: "default", sessionId: "host", toolCallId }), /undone already/);

    const second = await run(
      "edit_file",
      { path: "tools-host/undo.ts", edits: [{ oldText: "u = 1", newText: "u = 3" }] },
      { toolCallId: "host-undo-2" },
    );
    assert.equal(second.isError, undefined, text(second));
    writeFileSync(file, "export const u = 3;\n// the user added this\n");
    await assert.rejects(
      editor.undoEdit({ agentId: "default", sessionId: "host", toolCallId: "host-undo-2" }),
      /changed since the edit( \(it has unsaved changes\))?; nothing was undone/,
    );
    assert.equal(readFileSync(file, "utf8"), "export const u = 3;\n// the user added this\n");
  });

  test("a file changed after the proposal is not overwritten", async () => {
    const file = join(dir, "stale.ts");
    writeFileSync(file, "one\n");
    const c = ctx();
    await registry.get("edit_file")!.preview!(
      { path: "tools-host/stale.ts", edits: [{ oldText: "one", newText: "two" }] },
      c,
    );
    writeFileSync(file, "changed on disk\none\n");
    const out = await registry.run(
      "edit_file",
      { path: "tools-host/stale.ts", edits: [{ oldText: "one", newText: "two" }] },
      c,
    );
    assert.equal(out.isError, true);
    assert.match(text(out), /after the proposal; nothing was written/);
    assert.equal(readFileSync(file, "utf8"), "changed on disk\none\n");
  });

  test("a new file is created through the WorkspaceEdit", async () => {
    const out = await run("write_file", { path: "tools-host/new/deep.ts", content: "export {};\n" });
    assert.match(text(out), /^created tools-host\/new\/deep.ts/);
    assert.equal(readFileSync(join(dir, "new", "deep.ts"), "utf8"), "export {};\n");
  });

  test("every sandbox escape is refused by every tool", async () => {
    const calls: [string, (p: string) => unknown][] = [
      ["read_file", (p) => ({ path: p })],
      ["list_dir", (p) => ({ path: p })],
      ["grep", (p) => ({ pattern: "x", path: p })],
      ["glob", (p) => ({ pattern: "*", path: p })],
      ["edit_file", (p) => ({ path: p, edits: [{ oldText: "outside", newText: "x" }] })],
      ["write_file", (p) => ({ path: p, content: "x" })],
      ["run_command", (p) => ({ command: "true", cwd: p })],
      ["diagnostics", (p) => ({ path: p })],
      ["definition", (p) => ({ path: p, line: 1 })],
      ["document_symbols", (p) => ({ path: p })],
    ];
    for (const [name, call] of calls) {
      for (const p of [
        "../x",
        outside,
        "tools-host/out-link/secret.txt",
        "tools-host/out-link",
        "untitled:Untitled-1",
        "vscode-remote://x/y",
      ]) {
        const out = await run(name, call(p));
        assert.match(text(out), /^sandbox: /, `${name} ${p}: ${text(out)}`);
      }
    }
    for (const name of ["edit_file", "write_file"]) {
      for (const p of [".git/config", ".downcity/x.json"])
        assert.match(text(await run(name, calls.find((c) => c[0] === name)![1](p))), /protected/);
    }
    assert.equal(readFileSync(join(outside, "secret.txt"), "utf8"), "outside\n");
  });

  test("a cancelled command leaves no process of its group behind; its output streamed live", async () => {
    // Every process of the command holds the FIFO's write end (fd 3): EOF on it is the event that they all died.
    const fifo = join(dir, "held.fifo");
    execFileSync("mkfifo", [fifo]);
    const reader = createReadStream(fifo);
    const allGone = new Promise<void>((resolve, reject) => {
      reader.on("error", reject);
      reader.on("end", resolve);
      reader.resume();
    });
    const abort = new AbortController();
    let seen = "";
    let gotGroup!: (pgid: number) => void;
    const started = new Promise<number>((resolve) => (gotGroup = resolve));
    const pending = run(
      "run_command",
      { command: `exec 3>"${fifo}"; sleep 60 & echo group $$; wait` },
      {
        signal: abort.signal,
        onUpdate: (u) => {
          seen += u.text;
          const pgid = Number(/group (\d+)/.exec(seen)?.[1]);
          if (pgid) gotGroup(pgid);
        },
      },
    );
    const group = await withTimeout(started, 20_000, "the command's process group");
    assert.ok(groupMembers(group).length >= 2);
    assert.ok(
      vscode.window.terminals.some((t) => t.name.startsWith("Downcity: ")),
      "a Downcity terminal shows the run",
    );
    abort.abort();
    assert.match(text(await pending), /cancelled/);
    await withTimeout(allGone, 5_000, "every process of the group to close the FIFO");
    // A process past closing its files (the FIFO's EOF) but not yet a zombie is exiting: it
    // holds no descriptor at all. Anything still holding one is alive and leaked.
    assert.deepEqual(groupMembers(group).filter(holdsFiles), []);
  });

  test("diagnostics after an edit show the newly introduced error (TypeScript language features)", async () => {
    const file = join(dir, "typed.ts");
    writeFileSync(file, "export const n: number = 1;\n");
    const doc = await vscode.workspace.openTextDocument(file);
    await vscode.window.showTextDocument(doc);
    // The edit tool waits for the new error's update itself (tsserver may still be starting):
    // without one, the wait ends only at its bound, not after a quiet period a loaded machine outlasts.
    const edits = new ToolRegistry(
      createEditorEditTools({
        proposals: new ProposalStore(),
        diagnostics: diagnosticsWatch({ waitMs: 60_000, quietMs: 500, idleMs: 60_000 }),
      }),
    );
    const out = await edits.run(
      "edit_file",
      { path: "tools-host/typed.ts", edits: [{ oldText: "= 1", newText: '= "one"' }] },
      ctx(),
    );
    assert.match(
      text(out),
      /The edit introduced 1 new error in tools-host\/typed.ts:\n  tools-host\/typed.ts:1:14 error ts\(2322\)/,
    );
    assert.match(text(await run("diagnostics", { path: "tools-host/typed.ts" })), /error ts\(2322\)/);
  });

  test("definition and references come from VS Code's TypeScript support", async () => {
    writeFileSync(join(dir, "lib.ts"), "export function area(r: number): number {\n  return r * r;\n}\n");
    // The third line's error is the event that tsserver has loaded use.ts's project (semantic diagnostics).
    writeFileSync(
      join(dir, "use.ts"),
      'import { area } from "./lib";\nexport const x = area(2);\nexport const loaded: string = 0;\n',
    );
    const use = await vscode.workspace.openTextDocument(join(dir, "use.ts"));
    await vscode.window.showTextDocument(use);
    await whenError(use.uri, "2322", 60_000);
    const definition = text(await run("definition", { path: "tools-host/use.ts", line: 2, symbol: "area" }));
    assert.match(definition, /tools-host\/lib.ts:1:17: export function area\(r: number\): number \{/);
    const refs = text(await run("references", { path: "tools-host/lib.ts", symbol: "area" }));
    assert.match(refs, /tools-host\/lib.ts:1:17/);
    assert.match(refs, /tools-host\/use.ts:2:18: export const x = area\(2\);/);
    assert.match(
      text(await run("hover", { path: "tools-host/use.ts", line: 2, symbol: "area" })),
      /^```typescript\n.*area\(r: number\): number/,
    );
  });

  test("glob leaves out what the .gitignore, search.exclude and files.exclude leave out (real findFiles)", async () => {
    const files = ["g/a.ts", "g/b.log", "g/keep.log", "hidden/c.ts", "tmp/d.bak", "tmp/e.tmp", "tmp/f.ts"];
    for (const rel of files) {
      mkdirSync(join(dir, "globbed", rel, ".."), { recursive: true });
      writeFileSync(join(dir, "globbed", rel), "x\n");
    }
    writeFileSync(join(dir, "globbed", ".gitignore"), "*.log\n");
    writeFileSync(join(dir, "globbed", "g", ".gitignore"), "!keep.log\n");
    const search = vscode.workspace.getConfiguration("search", folder.uri);
    const filesConfig = vscode.workspace.getConfiguration("files", folder.uri);
    const before = {
      search: search.inspect("exclude")?.workspaceFolderValue,
      files: filesConfig.inspect("exclude")?.workspaceFolderValue,
    };
    await search.update("exclude", { "**/globbed/hidden": true }, vscode.ConfigurationTarget.WorkspaceFolder);
    await filesConfig.update("exclude", { "**/*.{bak,tmp}": true }, vscode.ConfigurationTarget.WorkspaceFolder);
    try {
      const listed = text(await run("glob", { pattern: "**/*", path: "tools-host/globbed" }));
      assert.equal(
        listed,
        [
          "tools-host/globbed/.gitignore",
          "tools-host/globbed/g/.gitignore",
          "tools-host/globbed/g/a.ts",
          "tools-host/globbed/g/keep.log",
          "tools-host/globbed/tmp/f.ts",
          "[1 ignored file left out]",
        ].join("\n"),
      );
      // VS Code's search itself reads the flattened exclude glob, relative to the folder as the tool asks
      // (the excluded trees are pruned, not just filtered after).
      const pruned = await vscode.workspace.findFiles(
        new vscode.RelativePattern(vscode.Uri.file(root), "tools-host/globbed/**/*"),
        (await editorExcludes(folder, root)).glob,
      );
      assert.deepEqual(pruned.map((u) => relative(join(dir, "globbed"), u.fsPath)).sort(), [
        ".gitignore",
        "g/.gitignore",
        "g/a.ts",
        "g/b.log",
        "g/keep.log",
        "tmp/f.ts",
      ]);
    } finally {
      await search.update("exclude", before.search, vscode.ConfigurationTarget.WorkspaceFolder);
      await filesConfig.update("exclude", before.files, vscode.ConfigurationTarget.WorkspaceFolder);
    }
  });
});

function mkdtemp(): string {
  const d = join(tmpdir(), `downcity-host-outside-${process.pid}-${Date.now()}`);
  mkdirSync(d);
  return d;
}
