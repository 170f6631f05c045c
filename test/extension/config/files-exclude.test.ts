import assert from "node:assert/strict";
import { test } from "node:test";
import * as vscode from "vscode";
import { filesExcluded } from "../../../extension/config/files-exclude";
import { settings } from "../../support/vscode-fake";

test("files.exclude gives the same matcher while the setting is unchanged (the watched manifest stays warm) and a new one when it changes", (t) => {
  t.after(() => delete settings["files.exclude"]);
  const folder = { uri: vscode.Uri.file("/work/some-folder"), name: "some-folder", index: 0 } as vscode.WorkspaceFolder;
  settings["files.exclude"] = { "**/out": true, "*.tmp": false };
  const first = filesExcluded(folder);
  assert.equal(filesExcluded(folder), first, "read again, unchanged: the same function");
  assert.equal(first("pkg/out/x.js"), true);
  assert.equal(first("a.tmp"), false, "an entry set to false hides nothing");
  settings["files.exclude"] = { "**/out": true, "*.tmp": true };
  const second = filesExcluded(folder);
  assert.notEqual(second, first, "a changed setting: a new function, so the next manifest walks the folder");
  assert.equal(second("a.tmp"), true);
});
