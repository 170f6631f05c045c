import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { createEditorGrepTool } from "../../../extension/tools/search-tools";
import { GLOB_MAX_RESULTS, createGlobTool } from "../../../core/tools/node/glob";
import { findOnPath } from "../../../core/tools/node/which";
import { tempDir } from "../../support/temp";
import { editorWorkspace, text } from "./helpers";

/** The listed paths of a glob answer, without its bracketed notes (what was skipped). */
const listed = (out: Parameters<typeof text>[0]) =>
  text(out)
    .split("\n")
    .filter((line) => !line.startsWith("["))
    .join("\n");

describe("editor-backed reads", () => {
  it("read_file returns the unsaved buffer of an open document, the file otherwise", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "on disk\n");
    ws.write("src/b.ts", "\uFEFFbom file\r\nsecond\r\n");
    assert.match(text(await ws.run("read_file", { path: "src/a.ts" })), /^\s+1\ton disk$/);
    await ws.editor.open(file, "typed but not saved\nline two\n");
    const out = text(await ws.run("read_file", { path: "src/a.ts" }));
    assert.equal(out, "     1\ttyped but not saved\n     2\tline two");
    assert.equal(text(await ws.run("read_file", { path: "src/a.ts", startLine: 2 })), "     2\tline two");
    // Not open: through workspace.fs, BOM dropped and CR not shown, like the editor.
    assert.equal(text(await ws.run("read_file", { path: "src/b.ts" })), "     1\tbom file\n     2\tsecond");
    const missing = await ws.run("read_file", { path: "src/none.ts" });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /src\/none.ts: no such file/);
  });

  it("list_dir lists through workspace.fs in the core's format", async (t) => {
    const ws = editorWorkspace(t);
    ws.write("pkg/z.txt", "z");
    ws.write("pkg/a.txt", "a");
    mkdirSync(path.join(ws.root, "pkg", "sub"));
    symlinkSync("a.txt", path.join(ws.root, "pkg", "link"));
    assert.equal(
      text(await ws.run("list_dir", { path: "pkg" })),
      "pkg/ (1 directory, 3 files)\nsub/\na.txt\nlink -> a.txt\nz.txt",
    );
    assert.match(text(await ws.run("list_dir", { path: "pkg/a.txt" })), /is a file, not a directory/);
  });

  it("glob goes through findFiles with files.exclude and search.exclude, never .git/ or .downcity/", async (t) => {
    const ws = editorWorkspace(t);
    for (const rel of ["src/a.ts", "src/deep/b.ts", "gen/c.ts", "out/d.ts", ".git/e.ts", ".downcity/f.ts", "src/g.js"])
      ws.write(rel, "x");
    ws.editor.config.files = { exclude: { "**/gen": true, "**/out": false } };
    ws.editor.config.search = { exclude: { "**/out": true } };
    assert.equal(listed(await ws.run("glob", { pattern: "**/*.ts" })), "src/a.ts\nsrc/deep/b.ts");
    assert.equal(listed(await ws.run("glob", { pattern: "*.ts", path: "src" })), "src/a.ts");
    assert.match(text(await ws.run("glob", { pattern: "**/*.rs" })), /^no files match/);
    assert.match(text(await ws.run("glob", { pattern: "../*" })), /may not use '\.\.'/);
  });

  it("glob lists what the core's glob lists (the .gitignore files, nested and negated) minus the user's excludes", async (t) => {
    const ws = editorWorkspace(t);
    ws.write(".gitignore", "*.log\nbuild/\n/only-top.ts\n");
    ws.write(".git/info/exclude", "secret.ts\n");
    ws.write("pkg/.gitignore", "!keep.log\nlocal.ts\n");
    for (const rel of [
      "a.ts",
      "a.log",
      "only-top.ts",
      "deep/only-top.ts",
      "build/b.ts",
      "deep/build/c.ts",
      "secret.ts",
      "pkg/keep.log",
      "pkg/x.log",
      "pkg/local.ts",
      "pkg/ok.ts",
      "tmp/t.bak",
      "tmp/t.ts",
    ])
      ws.write(rel, "x");
    // A file named like a folder-only rule is not ignored.
    ws.write("deep/build.ts", "x");
    const core = createGlobTool();
    for (const pattern of ["**/*", "**/*.ts", "pkg/*"]) {
      assert.equal(
        listed(await ws.run("glob", { pattern })),
        text(await core.execute({ pattern, path: "." }, ws.ctx())),
        pattern,
      );
    }
    assert.equal(listed(await ws.run("glob", { pattern: "**/*.log" })), "pkg/keep.log");
    // A settings glob with braces hides both alternatives; one naming a folder hides what is in it.
    ws.editor.config.files = { exclude: { "**/*.{bak,log}": true } };
    ws.editor.config.search = { exclude: { "/tmp": true } };
    assert.equal(
      listed(await ws.run("glob", { pattern: "**/*" })),
      ".gitignore\na.ts\ndeep/build.ts\ndeep/only-top.ts\npkg/.gitignore\npkg/ok.ts",
    );
  });

  it("glob asks findFiles again without the cap when the exact check dropped files past it", async (t) => {
    const ws = editorWorkspace(t);
    // Ignored only by a nested .gitignore with a negation, which findFiles is not told about.
    ws.write("gen/.gitignore", "*.ts\n!kept.ts\n");
    for (let i = 0; i < GLOB_MAX_RESULTS + 5; i++) ws.write(`gen/f${i}.ts`, "x");
    ws.write("gen/kept.ts", "x");
    ws.write("z.ts", "x");
    assert.equal(listed(await ws.run("glob", { pattern: "**/*.ts" })), "gen/kept.ts\nz.ts");
  });

  it("grep runs VS Code's bundled ripgrep when the app root has one, else the core's engines", async (t) => {
    const rg = findOnPath("rg");
    const appRoot = tempDir(t);
    if (rg) {
      mkdirSync(path.join(appRoot, "node_modules.asar.unpacked", "@vscode", "ripgrep", "bin"), { recursive: true });
      symlinkSync(rg, path.join(appRoot, "node_modules.asar.unpacked", "@vscode", "ripgrep", "bin", "rg"));
    }
    const ws = editorWorkspace(t, { appRoot });
    ws.write("src/a.ts", "const needle = 1;\nother\n");
    ws.write(".downcity/x.ts", "needle\n");
    const grep = ws.tools.tools.find((tool) => tool.name === "grep") as { engine?: string };
    if (rg) assert.match(grep.engine!, /node_modules\.asar\.unpacked\/@vscode\/ripgrep\/bin\/rg$/);
    assert.equal(text(await ws.run("grep", { pattern: "needle" })), "src/a.ts:1:const needle = 1;");
    const fallback = createEditorGrepTool(path.join(appRoot, "nothing-here"));
    assert.equal(fallback.engine, "PATH or JavaScript");
    assert.equal(
      text(await fallback.execute({ pattern: "needle", path: "src" }, ws.ctx())),
      "src/a.ts:1:const needle = 1;",
    );
  });
});
