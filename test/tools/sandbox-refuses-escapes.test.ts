import assert from "node:assert/strict";
import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { SandboxError, isProtectedName, resolveInsideRoot } from "../../core/tools";
import { makeWorkspace, text, type Workspace } from "./fixtures";

describe("sandbox: resolveInsideRoot", () => {
  let ws: Workspace;
  before(async () => {
    ws = makeWorkspace();
    await ws.write("src/a.txt", "inside\n");
    await ws.write(".git/config", "[core]\n");
    writeFileSync(path.join(ws.outside, "secret.txt"), "outside secret\n");
    symlinkSync(path.join(ws.outside, "secret.txt"), path.join(ws.root, "file-link"));
    symlinkSync(ws.outside, path.join(ws.root, "dir-link"));
    symlinkSync(path.join(ws.outside, "not-yet"), path.join(ws.root, "dangling-link"));
    symlinkSync(path.join(ws.outside, "nodir", "x"), path.join(ws.root, "dangling-dir-link"));
    symlinkSync(path.join(ws.root, ".git"), path.join(ws.root, "git-link"));
    symlinkSync("src", path.join(ws.root, "src-link"));
    symlinkSync("loop-b", path.join(ws.root, "loop-a"));
    symlinkSync("loop-a", path.join(ws.root, "loop-b"));
  });
  after(() => ws.cleanup());

  const refuses = async (p: string, forWrite: boolean, message: RegExp) => {
    await assert.rejects(resolveInsideRoot(ws.root, p, { forWrite }), (err: unknown) => {
      assert.ok(err instanceof SandboxError, `expected SandboxError for ${p}, got ${String(err)}`);
      assert.match(err.message, message);
      return true;
    });
  };

  it("resolves relative, ./ and absolute paths inside the root to real paths", async () => {
    assert.equal(await resolveInsideRoot(ws.root, "src/a.txt"), path.join(ws.root, "src/a.txt"));
    assert.equal(await resolveInsideRoot(ws.root, "./src/../src/a.txt"), path.join(ws.root, "src/a.txt"));
    assert.equal(await resolveInsideRoot(ws.root, path.join(ws.root, "src/a.txt")), path.join(ws.root, "src/a.txt"));
    assert.equal(await resolveInsideRoot(ws.root, "."), ws.root);
  });

  it("resolves a symlink that stays inside the root to its target", async () => {
    assert.equal(await resolveInsideRoot(ws.root, "src-link/a.txt"), path.join(ws.root, "src/a.txt"));
  });

  it("resolves a not-yet-existing file through its deepest existing ancestor", async () => {
    assert.equal(
      await resolveInsideRoot(ws.root, "src-link/new/deep.txt", { forWrite: true }),
      path.join(ws.root, "src/new/deep.txt"),
    );
  });

  it("refuses .. escapes", async () => {
    await refuses("../outside/secret.txt", false, /outside the workspace root/);
    await refuses("src/../../outside/secret.txt", true, /outside the workspace root/);
    await refuses("..", false, /outside the workspace root/);
  });

  it("refuses absolute paths outside the root", async () => {
    await refuses(path.join(ws.outside, "secret.txt"), false, /outside the workspace root/);
    await refuses("/etc/passwd", false, /outside the workspace root/);
  });

  it("refuses a symlinked file and a symlinked directory that point out of the root", async () => {
    await refuses("file-link", false, /symbolic link .*outside the workspace root/);
    await refuses("dir-link/secret.txt", false, /symbolic link .*outside the workspace root/);
    await refuses("dir-link/new-file.txt", true, /symbolic link .*outside the workspace root/);
  });

  it("refuses dangling symlinks whose (future) target is outside the root", async () => {
    await refuses("dangling-link", true, /outside the workspace root/);
    await refuses("dangling-dir-link", true, /outside the workspace root/);
  });

  it("refuses symlink loops with a clear error", async () => {
    await refuses("loop-a", false, /symbolic link/);
  });

  it("refuses NUL bytes and empty paths", async () => {
    await refuses("src/a.txt\0.png", false, /NUL byte/);
    await refuses("", false, /empty/);
  });

  it("refuses writes into .git/ and .downcity/, also via a symlink and in case variants", async () => {
    await refuses(".git/config", true, /\.git\/ is protected/);
    await refuses(".git/hooks/pre-commit", true, /\.git\/ is protected/);
    await refuses("pkg/.git/HEAD", true, /\.git\/ is protected/);
    await refuses(".downcity/agents/x/sessions/y/meta.json", true, /\.downcity\/ is protected/);
    await refuses("git-link/config", true, /resolves to \.git\/config.*\.git\/ is protected/);
    await refuses(".GIT/config", true, /is protected/);
    await refuses(".DownCity/x", true, /is protected/);
    await refuses(".git./config", true, /is protected/);
    await refuses(".git", true, /is protected/);
    await refuses(".", true, /workspace root itself/);
  });

  it("still allows reading .git", async () => {
    assert.equal(await resolveInsideRoot(ws.root, ".git/config"), path.join(ws.root, ".git/config"));
  });

  it("treats names merely starting with .git as ordinary", () => {
    assert.equal(isProtectedName(".gitignore"), false);
    assert.equal(isProtectedName(".github"), false);
    assert.equal(isProtectedName(".Git"), true);
  });

  it("every escape through the tools is refused with an isError result and nothing written outside", async () => {
    const attempts: [string, unknown][] = [
      ["read_file", { path: "../outside/secret.txt" }],
      ["read_file", { path: "file-link" }],
      ["read_file", { path: "dir-link/secret.txt" }],
      ["list_dir", { path: "dir-link" }],
      ["glob", { pattern: "**/*", path: "dir-link" }],
      ["grep", { pattern: "secret", path: "dir-link" }],
      ["grep", { pattern: "secret", path: "file-link" }],
      ["write_file", { path: "../outside/pwned.txt", content: "x" }],
      ["write_file", { path: "dir-link/pwned.txt", content: "x" }],
      ["write_file", { path: "dangling-link", content: "x" }],
      ["write_file", { path: ".git/hooks/post-checkout", content: "x" }],
      ["write_file", { path: "git-link/hooks/post-checkout", content: "x" }],
      ["write_file", { path: ".downcity/agents/a/x.json", content: "x" }],
      ["write_file", { path: "a\0b", content: "x" }],
      ["edit_file", { path: "file-link", edits: [{ oldText: "outside", newText: "pwned" }] }],
      ["edit_file", { path: ".git/config", edits: [{ oldText: "[core]", newText: "[pwned]" }] }],
      ["run_command", { command: "pwd", cwd: "../outside" }],
      ["run_command", { command: "pwd", cwd: "dir-link" }],
    ];
    for (const [tool, args] of attempts) {
      const out = await ws.run(tool, args);
      assert.equal(out.isError, true, `${tool} ${JSON.stringify(args)} should be refused: ${text(out)}`);
      assert.match(text(out), /^sandbox: /, `${tool} ${JSON.stringify(args)}`);
    }
    assert.deepEqual(readdirSync(ws.outside).sort(), ["secret.txt"]);
    assert.equal(readFileSync(path.join(ws.outside, "secret.txt"), "utf8"), "outside secret\n");
    assert.equal(readFileSync(path.join(ws.root, ".git/config"), "utf8"), "[core]\n");
    assert.deepEqual(readdirSync(path.join(ws.root, ".git")), ["config"]);
  });

  it("a glob over the root does not follow a directory symlink out of it", async () => {
    mkdirSync(path.join(ws.outside, "deep"), { recursive: true });
    writeFileSync(path.join(ws.outside, "deep", "leak.txt"), "outside secret\n");
    const globbed = text(await ws.run("glob", { pattern: "**/*.txt" }));
    assert.doesNotMatch(globbed, /leak\.txt|secret\.txt/);
    const grepped = await ws.run("grep", { pattern: "outside secret" });
    assert.match(text(grepped), /no matches/);
  });
});
