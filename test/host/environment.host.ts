// The harness itself: these run in code-server's extension host, against the real API.
import * as assert from "node:assert/strict";
import { suite, test } from "mocha";
import * as vscode from "vscode";
import { hostWorkspace } from "./workspace";

suite("extension host", () => {
  test("is VS Code 1.100 with the seeded multi-root workspace open", () => {
    assert.match(vscode.version, /^1\.100\./);
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    assert.deepEqual(folders, hostWorkspace().folders);
  });

  test("loads the native zstd addon the store needs", async () => {
    const zstd = require("@mongodb-js/zstd") as typeof import("@mongodb-js/zstd");
    const input = Buffer.from("downcity ".repeat(100));
    assert.deepEqual(await zstd.decompress(await zstd.compress(input, 3)), input);
  });
});
