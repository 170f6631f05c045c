import assert from "node:assert/strict";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { editorWorkspace, text } from "./helpers";

/** The path arguments of each tool, from a path to try. */
const CALLS: Record<string, (p: string) => Record<string, unknown>> = {
  read_file: (p) => ({ path: p }),
  list_dir: (p) => ({ path: p }),
  glob: (p) => ({ pattern: "*", path: p }),
  grep: (p) => ({ pattern: "x", path: p }),
  edit_file: (p) => ({ path: p, edits: [{ oldText: "outside", newText: "pwned" }] }),
  write_file: (p) => ({ path: p, content: "pwned" }),
  run_command: (p) => ({ command: "echo ran > ran.txt", cwd: p }),
  diagnostics: (p) => ({ path: p }),
  definition: (p) => ({ path: p, line: 1 }),
  references: (p) => ({ path: p, line: 1 }),
  hover: (p) => ({ path: p, line: 1 }),
  document_symbols: (p) => ({ path: p }),
};
const WRITERS = new Set(["edit_file", "write_file"]);

describe("every editor-backed tool keeps the core sandbox", () => {
  it("refuses .., absolute paths and symlinks out of the folder, and URIs of any scheme", async (t) => {
    const ws = editorWorkspace(t);
    symlinkSync(ws.outside, path.join(ws.root, "out-dir"));
    symlinkSync(path.join(ws.outside, "secret.txt"), path.join(ws.root, "out-file"));
    symlinkSync(path.join(ws.outside, "not-yet"), path.join(ws.root, "dangling"));
    // Tools that get a directory try the directory escapes, the others the file ones.
    const dirTools = new Set(["list_dir", "glob", "grep", "run_command"]);
    assert.deepEqual(new Set(ws.tools.tools.map((t) => t.name)), new Set([...Object.keys(CALLS), "workspace_symbols"]));
    for (const [name, call] of Object.entries(CALLS)) {
      const escapes = dirTools.has(name)
        ? ["..", "../outside", ws.outside, "out-dir", "out-dir/."]
        : [
            "../outside/secret.txt",
            path.join(ws.outside, "secret.txt"),
            "out-file",
            "out-dir/secret.txt",
            ...(WRITERS.has(name) ? ["dangling"] : []),
          ];
      escapes.push(
        "untitled:Untitled-1",
        "vscode-remote://ssh-remote+host/etc/passwd",
        `file://${path.join(ws.outside, "secret.txt")}`,
      );
      for (const p of escapes) {
        const out = await ws.run(name, call(p));
        assert.equal(out.isError, true, `${name} ${p}: ${text(out)}`);
        assert.match(text(out), /^sandbox: /, `${name} ${p}: ${text(out)}`);
      }
    }
    assert.equal(readFileSync(path.join(ws.outside, "secret.txt"), "utf8"), "outside\n");
    assert.equal(existsSync(path.join(ws.outside, "not-yet")), false);
    assert.equal(existsSync(path.join(ws.outside, "ran.txt")), false);
    assert.equal(ws.editor.applied.length, 0);
  });

  it("edit_file and write_file never write into .git/ or .downcity/, at any depth or spelling", async (t) => {
    const ws = editorWorkspace(t);
    ws.write(".git/config", "outside\n");
    ws.write("sub/.downcity/agents/x.json", "outside\n");
    symlinkSync(".git", path.join(ws.root, "innocent"));
    for (const name of WRITERS) {
      for (const p of [
        ".git/config",
        ".GIT/config",
        "sub/.downcity/agents/x.json",
        ".downcity/new.json",
        "innocent/config",
      ]) {
        const out = await ws.run(name, CALLS[name]!(p));
        assert.match(text(out), /^sandbox: .*protected/, `${name} ${p}: ${text(out)}`);
        // The preview (what the review shows) is refused the same way.
        await assert.rejects(ws.registry.get(name)!.preview!(CALLS[name]!(p) as never, ws.ctx()), /protected/);
      }
    }
    assert.equal(readFileSync(path.join(ws.root, ".git/config"), "utf8"), "outside\n");
    assert.equal(ws.editor.applied.length, 0);
  });

  it("code-intelligence results outside the folder name the file but show none of it", async (t) => {
    const ws = editorWorkspace(t);
    ws.write("a.ts", "use(x)\n");
    const { Location, Position } = await import("../../support/vscode-fake/editor");
    const { Uri, commands } = await import("../../support/vscode-fake/index");
    const reg = commands.registerCommand("vscode.executeDefinitionProvider", () => [
      new Location(Uri.file(path.join(ws.outside, "secret.txt")), new Position(0, 0)),
    ]);
    t.after(() => reg.dispose());
    assert.equal(
      text(await ws.run("definition", { path: "a.ts", line: 1, column: 5 })),
      "1 definition\n[outside the workspace] secret.txt:1:1",
    );
  });
});
