// Issue 26 in code-server's real extension host: the editor glob and grep over a folder
// with a 20,000-file ignored tree (build/), seeded by test/e2e/ignored-host.test.ts. Its own
// bundle (not test/host/*.host.ts): the other in-host tests do not pay for the big tree.
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { suite, suiteSetup, test } from "mocha";
import { ToolRegistry } from "../../../core/tools/registry";
import * as vscode from "vscode";
import type { ToolContext, ToolOutput } from "../../../core/tools/types";
import { editorExcludes, type FindFiles } from "../../../extension/tools/excludes";
import { createEditorTools } from "../../../extension/tools";
import { createEditorGlobTool, createEditorGrepTool } from "../../../extension/tools/search-tools";
import { withTimeout } from "../../support/with-timeout";

const text = (out: ToolOutput) => out.content.map((p) => (p.type === "text" ? p.text : "")).join("");
const IGNORED_FILES = Number(process.env.DOWNCITY_IGNORED_FILES ?? 20_000);

/** workspace.findFiles, counted: what each call was asked and how many paths it returned. */
function counted() {
  const calls: { include: string; exclude: string; returned: string[] }[] = [];
  const find: FindFiles = async (include, exclude, max, token) => {
    const uris = await vscode.workspace.findFiles(include, exclude, max, token);
    calls.push({
      include: (include as vscode.RelativePattern).pattern,
      exclude: String(exclude),
      returned: uris.map((u) => vscode.workspace.asRelativePath(u, false)),
    });
    return uris;
  };
  return { find, calls };
}

suite("ignored trees (issue 26)", function () {
  this.timeout(120_000);
  let folder: vscode.WorkspaceFolder;
  let root: string;
  const ctx = (): ToolContext => ({ root, signal: new AbortController().signal });

  suiteSetup(() => {
    folder = vscode.workspace.workspaceFolders![0]!;
    root = realpathSync(folder.uri.fsPath);
  });

  test("the tree is there: findFiles with only the settings' excludes (today's glob) returns all of it", async () => {
    const all = await vscode.workspace.findFiles(
      new vscode.RelativePattern(vscode.Uri.file(root), "**/*"),
      (await editorExcludes(folder, root, { nested: false })).settingsGlob,
    );
    assert.ok(all.filter((u) => u.fsPath.includes("/build/")).length >= IGNORED_FILES, `${all.length} files`);
  });

  test("glob: no findFiles call returns a file of the ignored tree; the nested .gitignore, its `!` and a file named like the folder", async () => {
    const c = counted();
    const out = text(
      await createEditorGlobTool(folder, { findFiles: c.find }).execute({ pattern: "**/*", path: "." }, ctx()),
    );
    assert.deepEqual(out.split("\n"), [
      ".gitignore",
      "pkg/.gitignore",
      "pkg/keep.log",
      "src/a.ts",
      "src/build",
      "[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it); 1 ignored file left out]",
    ]);
    const returned = c.calls.flatMap((call) => call.returned);
    assert.deepEqual(
      returned.filter((p) => p.startsWith("build/") || p.startsWith("pkg/gen/")),
      [],
    );
    // Finding the nested .gitignore files (twice: pkg/'s `!keep.log` un-prunes the root's `*.log`), then the listing.
    assert.deepEqual(
      c.calls.map((call) => call.include),
      ["**/.gitignore", "**/.gitignore", "**/*"],
    );
    assert.deepEqual(c.calls[2]!.returned.sort(), [
      ".gitignore",
      "pkg/.gitignore",
      "pkg/keep.log",
      "src/a.ts",
      "src/build",
      "src/x.log",
    ]);
  });

  test("glob: a pattern naming the ignored tree searches it, and says so", async () => {
    const c = counted();
    const glob = createEditorGlobTool(folder, { findFiles: c.find });
    const out = text(await glob.execute({ pattern: "build/pkg7/**/needle*", path: "." }, ctx()));
    assert.equal(
      out,
      "build/pkg7/lib/needle.ts\n[searched build/, which .gitignore ignores, because the pattern names it]",
    );
    const nested = text(await glob.execute({ pattern: "**/*.ts", path: "pkg/gen" }, ctx()));
    assert.equal(nested, "pkg/gen/g.ts\n[searched pkg/gen/, which .gitignore ignores, because the pattern names it]");
  });

  test("grep: VS Code's ripgrep skips the ignored tree; a path or include naming it searches it", async () => {
    const grep = createEditorGrepTool(vscode.env.appRoot, folder);
    assert.match(grep.engine, /ripgrep/);
    assert.equal(
      text(await grep.execute({ pattern: "needle", path: "." }, ctx())),
      "src/a.ts:1:export const needle = 1;\n[ignored, not searched: build/ (name one in the path or include to search it)]",
    );
    const named =
      "build/pkg7/lib/needle.ts:1:export const needle = 7;\n[searched build/, which .gitignore ignores, because it was named]";
    assert.equal(text(await grep.execute({ pattern: "needle", path: "build/pkg7" }, ctx())), named);
    assert.equal(text(await grep.execute({ pattern: "needle", path: ".", include: "build/pkg7/**" }, ctx())), named);
  });

  test("search.exclude prunes the editor glob and grep too", async () => {
    const search = vscode.workspace.getConfiguration("search", folder.uri);
    const before = search.inspect("exclude")?.workspaceFolderValue;
    await search.update("exclude", { src: true }, vscode.ConfigurationTarget.WorkspaceFolder);
    try {
      const c = counted();
      const out = text(
        await createEditorGlobTool(folder, { findFiles: c.find }).execute({ pattern: "**/*.ts", path: "." }, ctx()),
      );
      assert.equal(
        out,
        "no files match **/*.ts in ./\n[ignored, not searched: build/, pkg/gen/, src/ (name one in the pattern to search it)]",
      );
      assert.deepEqual(
        c.calls.flatMap((call) => call.returned).filter((p) => p.startsWith("src/")),
        [],
      );
      const grep = createEditorGrepTool(vscode.env.appRoot, folder);
      assert.match(
        text(await grep.execute({ pattern: "needle", path: "." }, ctx())),
        /^no matches for \/needle\/ in \.\n\[ignored, not searched: build\/, src\//,
      );
    } finally {
      await search.update("exclude", before, vscode.ConfigurationTarget.WorkspaceFolder);
    }
  });

  test("the nested .gitignore files are found once and kept; the grep note names what they ignore", async () => {
    const c = counted();
    const tools = createEditorTools({ folder, root, findFiles: c.find });
    try {
      const registry = new ToolRegistry(tools.tools);
      const discoveries = () => c.calls.filter((call) => call.include === "**/.gitignore").length;
      const ts = "src/a.ts\n[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it)]";
      assert.equal(text(await registry.run("glob", { pattern: "**/*.ts", path: "." }, ctx())), ts);
      assert.equal(discoveries(), 2, "found (twice: pkg/'s `!keep.log` un-prunes the root's `*.log`)");
      assert.equal(text(await registry.run("glob", { pattern: "**/*.ts", path: "." }, ctx())), ts);
      assert.equal(
        text(await registry.run("grep", { pattern: "needle", path: "." }, ctx())),
        "src/a.ts:1:export const needle = 1;\n" +
          "[ignored, not searched: build/, pkg/gen/ (name one in the path or include to search it)]",
      );
      assert.equal(discoveries(), 2, "the second glob and the grep looked in the cache");
      assert.deepEqual(
        c.calls.map((call) => call.include),
        ["**/.gitignore", "**/.gitignore", "**/*.ts", "**/*.ts"],
      );
    } finally {
      await tools.dispose();
    }
  });

  test("a .gitignore the agent's write_file writes counts at once; one another process writes, on the watcher's event", async () => {
    const c = counted();
    const tools = createEditorTools({ folder, root, findFiles: c.find });
    const mine = join(root, "src", ".gitignore");
    const theirs = join(root, "lib", ".gitignore");
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, "lib/.gitignore"));
    try {
      const registry = new ToolRegistry(tools.tools);
      const tmp = async () => text(await registry.run("glob", { pattern: "**/*.tmp", path: "." }, ctx()));
      const note = "[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it)]";
      assert.equal(await tmp(), `no files match **/*.tmp in ./\n${note}`);
      assert.equal(await tmp(), `no files match **/*.tmp in ./\n${note}`, "kept");
      // The root's `*.tmp` was pruned; the agent re-includes src/x.tmp, and the very next glob lists it.
      const wrote = await registry.run("write_file", { path: "src/.gitignore", content: "!x.tmp\n" }, ctx());
      assert.notEqual(wrote.isError, true, text(wrote));
      // (`**/*.tmp` no longer prunes: lib/y.tmp is listed by findFiles, and left out by the exact check.)
      assert.equal(await tmp(), `src/x.tmp\n${note.slice(0, -1)}; 1 ignored file left out]`);
      // Another process re-includes lib/y.tmp; once VS Code's watcher reports it, the glob lists it too.
      const created = new Promise<void>((ok) => watcher.onDidCreate(() => ok()));
      execFileSync("sh", ["-c", "printf '!y.tmp\\n' > lib/.gitignore"], { cwd: root });
      await withTimeout(created, 30_000, "the file watcher's event for lib/.gitignore");
      assert.equal(await tmp(), `lib/y.tmp\nsrc/x.tmp\n${note}`);
    } finally {
      watcher.dispose();
      rmSync(mine, { force: true });
      rmSync(theirs, { force: true });
      await tools.dispose();
    }
  });
});
