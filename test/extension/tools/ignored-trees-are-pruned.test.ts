import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as vscode from "vscode";
import * as fake from "../../support/vscode-fake";
import { createEditorGlobTool, createEditorGrepTool } from "../../../extension/tools/search-tools";
import type { FindFiles } from "../../../extension/tools/excludes";
import { editorWorkspace, text, type EditorWorkspace } from "./helpers";

const folderOf = () => vscode.workspace.workspaceFolders![0]!;

/** findFiles through the fake editor (which, like ripgrep, does not enter an excluded directory), counted. */
function countedFindFiles() {
  const calls: { include: string; exclude: string; returned: string[] }[] = [];
  const find: FindFiles = async (include, exclude, max, token) => {
    const uris = await vscode.workspace.findFiles(include, exclude, max, token);
    calls.push({
      include: (include as vscode.RelativePattern).pattern,
      exclude: String(exclude),
      returned: uris.map((u) => u.fsPath),
    });
    return uris;
  };
  return { find, calls, returned: () => calls.reduce((n, c) => n + c.returned.length, 0) };
}

/** 500 ignored files under build/ and a nested .gitignore that re-includes one file. */
function seed(ws: EditorWorkspace) {
  ws.write(".gitignore", "build/\n*.log\n");
  for (let i = 0; i < 500; i++) ws.write(`build/pkg${i % 20}/f${i}.js`, "x\n");
  ws.write("build/pkg3/needle.js", "const needle = 1;\n");
  ws.write("src/a.js", "const needle = 2;\n");
  ws.write("src/build", "a file named like the ignored folder\n");
  ws.write("src/x.log", "x\n");
  ws.write("pkg/.gitignore", "gen/\n!keep.log\n");
  ws.write("pkg/keep.log", "kept\n");
  ws.write("pkg/gen/g.js", "x\n");
}

describe("editor search tools skip ignored trees before they enumerate them", () => {
  it("glob: findFiles is never handed the ignored tree; the nested .gitignore and its `!` still decide", async (t) => {
    const ws = editorWorkspace(t);
    seed(ws);
    const counted = countedFindFiles();
    const glob = createEditorGlobTool(folderOf(), { findFiles: counted.find });
    const out = text(await glob.execute({ pattern: "**/*", path: "." }, ws.ctx()));
    assert.deepEqual(out.split("\n"), [
      ".gitignore",
      "pkg/.gitignore",
      "pkg/keep.log",
      "src/a.js",
      "src/build",
      "[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it); 1 ignored file left out]",
    ]);
    // findFiles for the nested .gitignore files pruned by the root's rules; pkg/'s `!keep.log` un-prunes the
    // root's `*.log`, so once more without it (what it hid might have held a .gitignore); then the listing.
    // None of them returned a file under build/ (or pkg/gen/).
    assert.deepEqual(
      counted.calls.map((c) => c.include),
      ["**/.gitignore", "**/.gitignore", "**/*"],
    );
    assert.match(counted.calls[0]!.exclude, /\*\*\/build\/\*.*\*\*\/\*\.log/);
    assert.doesNotMatch(counted.calls[1]!.exclude, /\*\.log/);
    assert.match(counted.calls[2]!.exclude, /\*\*\/build\/\*.*pkg\/\*\*\/gen\/\*/);
    const all = counted.calls.flatMap((c) => c.returned);
    assert.equal(all.filter((f) => f.includes("/build/") || f.includes("/gen/")).length, 0);
    // Of the 500 files under build/, none came back: the listing returned the 5 listed and src/x.log.
    assert.equal(counted.calls[2]!.returned.length, 6);
    assert.equal(counted.returned(), 10);
    // `*.log` is not pruned (the nested `!keep.log` may re-include), so src/x.log came back and the exact check left it out.
    assert.ok(all.some((f) => f.endsWith("src/x.log")));
  });

  it("glob: a pattern naming an ignored folder searches it, and says so", async (t) => {
    const ws = editorWorkspace(t);
    seed(ws);
    const counted = countedFindFiles();
    const glob = createEditorGlobTool(folderOf(), { findFiles: counted.find });
    const out = text(await glob.execute({ pattern: "build/pkg3/needle*", path: "." }, ws.ctx()));
    assert.equal(
      out,
      "build/pkg3/needle.js\n[searched build/, which .gitignore ignores, because the pattern names it]",
    );
    const nested = text(await glob.execute({ pattern: "gen/**", path: "pkg" }, ws.ctx()));
    assert.equal(nested, "pkg/gen/g.js\n[searched pkg/gen/, which .gitignore ignores, because the pattern names it]");
    // .git/ is in files.exclude but is never searched, named or not: naming it is an error.
    ws.write(".git/config", "x\n");
    for (const args of [
      { pattern: ".git/**", path: "." },
      { pattern: "**/*", path: ".git" },
    ])
      await assert.rejects(glob.execute(args, ws.ctx()), /^ToolError: glob does not search inside \.git\/: /);
    // A settings exclude named explicitly: the same.
    ws.editor.config.files = { exclude: { "**/src": true } };
    assert.match(
      text(await glob.execute({ pattern: "src/*.js", path: "." }, ws.ctx())),
      /^src\/a.js\n\[searched src\/, which files.exclude ignores/,
    );
  });

  it("grep: ripgrep or the JS scan skip the ignored tree; a path into it searches it, and says so", async (t) => {
    const ws = editorWorkspace(t);
    seed(ws);
    ws.editor.config.search = { exclude: { "pkg/gen": true } };
    ws.write("pkg/gen/h.js", "const needle = 3;\n");
    for (const grep of [createEditorGrepTool("", folderOf()), createEditorGrepTool("/nothing-here", folderOf())]) {
      const out = text(await grep.execute({ pattern: "needle", path: "." }, ws.ctx()));
      assert.equal(
        out,
        "src/a.js:1:const needle = 2;\n[ignored, not searched: build/, pkg/gen/ (name one in the path or include to search it)]",
      );
      assert.equal(
        text(await grep.execute({ pattern: "needle", path: "build/pkg3" }, ws.ctx())),
        "build/pkg3/needle.js:1:const needle = 1;\n[searched build/, which .gitignore ignores, because it was named]",
      );
      assert.equal(
        text(await grep.execute({ pattern: "needle", path: ".", include: "build/pkg3/*.js" }, ws.ctx())),
        "build/pkg3/needle.js:1:const needle = 1;\n[searched build/, which .gitignore ignores, because it was named]",
      );
      assert.equal(
        text(await grep.execute({ pattern: "needle", path: "pkg/gen" }, ws.ctx())),
        "pkg/gen/h.js:1:const needle = 3;\n[searched pkg/gen/, which search.exclude ignores, because it was named]",
      ); // .git/ named as the path or include is refused, not searched.
      ws.write(".git/config", "const needle = 4;\n");
      for (const args of [
        { pattern: "needle", path: ".git" },
        { pattern: "needle", path: ".", include: ".git/*" },
      ])
        await assert.rejects(grep.execute(args, ws.ctx()), /^ToolError: grep does not search inside \.git\/: /);
    }
  });
});

describe("where the nested .gitignore files are is kept between searches", () => {
  /** build/ ignored, `*.log` ignored everywhere, pkg/gen/ ignored by pkg/'s own .gitignore; no `!` yet. */
  function seedPlain(ws: EditorWorkspace) {
    ws.write(".gitignore", "build/\n*.log\n");
    for (let i = 0; i < 50; i++) ws.write(`build/f${i}.js`, "x\n");
    ws.write("src/a.js", "const needle = 1;\n");
    ws.write("lib/y.log", "const needle = 2;\n");
    ws.write("pkg/.gitignore", "gen/\n");
    ws.write("pkg/gen/g.js", "const needle = 3;\n");
  }
  const discoveries = (calls: { include: string }[]) => calls.filter((c) => c.include === "**/.gitignore").length;
  const watcher = () =>
    fake.created.watchers.findLast(
      (w) => !w.disposed && (w.pattern as vscode.RelativePattern).pattern === "**/.gitignore",
    )!;

  it("the second glob makes no discovery call; the agent's write_file of a .gitignore counts at once", async (t) => {
    const counted = countedFindFiles();
    const ws = editorWorkspace(t, { findFiles: counted.find });
    seedPlain(ws);
    const logs = async () => text(await ws.run("glob", { pattern: "**/*.log", path: "." }));
    assert.equal(
      await logs(),
      "no files match **/*.log in ./\n[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it)]",
    );
    assert.equal(discoveries(counted.calls), 1);
    assert.equal(
      await logs(),
      "no files match **/*.log in ./\n[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it)]",
    );
    assert.equal(discoveries(counted.calls), 1, "the second glob found the .gitignore files in the cache");
    assert.equal(counted.calls.length, 3);
    // The agent re-includes lib/y.log: its write drops the cache (no watcher event is fired here), so the
    // next glob looks again, sees the `!` and no longer prunes `**/*.log`.
    const wrote = await ws.run("write_file", { path: "lib/.gitignore", content: "!y.log\n" });
    assert.notEqual(wrote.isError, true, text(wrote));
    assert.equal(
      await logs(),
      "lib/y.log\n[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it)]",
    );
    // Twice: the first search pruned by `**/*.log`, which lib/'s `!y.log` un-prunes (see the first test above).
    assert.equal(discoveries(counted.calls), 3);
    // edit_file too: pkg/gen/ is no longer ignored.
    const edited = await ws.run("edit_file", {
      path: "pkg/.gitignore",
      edits: [{ oldText: "gen/\n", newText: "other/\n" }],
    });
    assert.notEqual(edited.isError, true, text(edited));
    assert.equal(
      text(await ws.run("glob", { pattern: "**/*.js", path: "." })),
      "pkg/gen/g.js\nsrc/a.js\n[ignored, not searched: build/ (name one in the pattern to search it)]",
    );
    assert.equal(discoveries(counted.calls), 5);
  });

  it("a .gitignore another process writes counts once the watcher reports it; the grep note names nested ignores", async (t) => {
    const counted = countedFindFiles();
    const ws = editorWorkspace(t, { findFiles: counted.find });
    seedPlain(ws);
    const grep = async () => text(await ws.run("grep", { pattern: "needle", path: "." }));
    // The grep note names pkg/gen/, which only pkg/.gitignore ignores (found once, then kept).
    const note = "[ignored, not searched: build/, pkg/gen/ (name one in the path or include to search it)]";
    assert.equal(await grep(), `src/a.js:1:const needle = 1;\n${note}`);
    assert.equal(await grep(), `src/a.js:1:const needle = 1;\n${note}`);
    assert.equal(discoveries(counted.calls), 1);
    assert.equal(
      text(await ws.run("glob", { pattern: "**/*.log", path: "." })),
      "no files match **/*.log in ./\n[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it)]",
    );
    assert.equal(discoveries(counted.calls), 1, "glob and grep share the folder's discovery");
    // Another process writes lib/.gitignore; VS Code's watcher reports it.
    ws.write("lib/.gitignore", "!y.log\n");
    watcher().fire("create", vscode.Uri.file(`${ws.root}/lib/.gitignore`));
    assert.equal(
      text(await ws.run("glob", { pattern: "**/*.log", path: "." })),
      "lib/y.log\n[ignored, not searched: build/, pkg/gen/ (name one in the pattern to search it)]",
    );
    assert.equal(discoveries(counted.calls), 3, "looked again (twice: the `!` un-prunes `**/*.log`)");
    // A change of the root's .gitignore (also reported) is read anew, and ripgrep honours it too.
    ws.write(".gitignore", "build/\n*.log\nsrc/\n");
    watcher().fire("change", vscode.Uri.file(`${ws.root}/.gitignore`));
    assert.equal(
      await grep(),
      "lib/y.log:1:const needle = 2;\n[ignored, not searched: build/, pkg/gen/, src/ (name one in the path or include to search it)]",
    );
  });
});
