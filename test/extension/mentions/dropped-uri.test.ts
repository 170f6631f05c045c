// A file dragged from the Explorer of a remote window (code-server, SSH) arrives in the
// webview as `vscode-remote://<authority>/<path>`; the extension host on that remote names
// it `file:///<path>`. Found by context-ui's real drag in code-server, where every dropped
// file was refused as "not a file of this workspace folder".
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { hostUri } from "../../../extension/mentions/dropped-uri";

test("a vscode-remote URI of this host's remote is the host's file", () => {
  const code = hostUri("vscode-remote://127.0.0.1:35179/work/ws/src/inventory.ts", "127.0.0.1:35179");
  assert.equal(code.scheme, "file");
  assert.equal(code.authority, "");
  assert.equal(code.path, "/work/ws/src/inventory.ts");
  // An SSH remote: the authority is the remote's name, then `+` and the host.
  const ssh = hostUri("vscode-remote://ssh-remote%2Bbox/home/me/a.ts", "ssh-remote");
  assert.equal(ssh.scheme, "file");
  assert.equal(ssh.path, "/home/me/a.ts");
});

test("any other URI is kept as it is, for the inside-the-folder check to refuse", () => {
  const other = hostUri("vscode-remote://wsl%2BUbuntu/home/me/a.ts", "ssh-remote");
  assert.equal(other.scheme, "vscode-remote");
  const local = hostUri("vscode-remote://127.0.0.1:1/a.ts", undefined);
  assert.equal(local.scheme, "vscode-remote", "a local window has no remote: nothing is mapped");
  assert.equal(hostUri("file:///work/ws/a.ts", "127.0.0.1:35179").scheme, "file");
  assert.equal(hostUri("untitled:Untitled-1", "127.0.0.1:35179").scheme, "untitled");
});
