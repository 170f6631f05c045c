// MCP trust kept outside the project and durable: mcp-trust.json in the workspace's storageUri,
// mode 0600, replaced by rename, a broken file moved aside; workspaceState with no storage.
import assert from "node:assert/strict";
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import { McpServers } from "../../../extension/mcp/servers";
import { McpTrust, TRUST_FILE } from "../../../extension/mcp/trust";
import * as fake from "../../support/vscode-fake";
import { fakeContext, folder } from "../../support/extension/helpers";
import { tempDir } from "../../support/temp";
import { fixtureServer } from "../../mcp/helpers";

type T = { after(fn: () => unknown): void };
const FP = JSON.stringify(["stdio", "node", ["server.js"], { TOKEN: "literal-secret" }, "", ""]);

/** A window's context whose storageUri is a real directory (the same one for "another window"). */
function windowOn(storage: string) {
  return Object.assign(fakeContext(), { storageUri: vscode.Uri.file(storage) });
}

function trustIn(storage: string) {
  const logged: string[] = [];
  return { trust: McpTrust.of(windowOn(storage), (m) => logged.push(m)), logged };
}

const onDisk = (storage: string) => JSON.parse(readFileSync(join(storage, TRUST_FILE), "utf8"));

test("consent and always-allow are a 0600 JSON file in storageUri that another window reads, per folder", async (t) => {
  const storage = join(tempDir(t), "ws-storage", "downcity.downcity-vscode"); // not yet created, as VS Code leaves it
  const { trust } = trustIn(storage);
  await trust.rememberConsent("/w/a", FP);
  await trust.allowAlways("/w/a", "srv", "echo");
  await trust.allowAlways("/w/b", "srv");

  const file = join(storage, TRUST_FILE);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const doc = onDisk(storage);
  assert.equal(doc.version, 1);
  assert.deepEqual(doc.always, [
    { folder: "/w/a", server: "srv", tool: "echo" },
    { folder: "/w/b", server: "srv" },
  ]);
  assert.equal(doc.consent.length, 1);
  assert.equal(doc.consent[0].folder, "/w/a");
  const text = readFileSync(file, "utf8");
  assert.ok(!text.includes("literal-secret"), "the launch is kept as a digest: a literal env value is not copied");
  assert.ok(!text.includes("\\u0000"));

  // A new window (a reload, or the host killed) on the same storage: everything is there, kept apart per folder.
  const { trust: next } = trustIn(storage);
  assert.equal(next.consented("/w/a", FP), true);
  assert.equal(next.consented("/w/b", FP), false);
  assert.equal(next.consented("/w/a", FP.replace("server.js", "other.js")), false, "a changed launch asks again");
  assert.equal(next.alwaysAllowed("/w/a", "srv", "echo"), true);
  assert.equal(next.alwaysAllowed("/w/a", "srv", "add"), false);
  assert.equal(next.alwaysAllowed("/w/b", "srv", "add"), true, "the whole server in folder b");
  assert.deepEqual(next.alwaysTools("/w/a", "srv"), ["echo"]);
  assert.deepEqual(next.alwaysTools("/w/b", "srv"), []);

  // The first window sees the second's change (the file is re-read when it changed).
  assert.equal(await next.toggleAlways("/w/a", "srv", "echo"), false);
  assert.equal(trust.isAlways("/w/a", "srv", "echo"), false);
});

test("a write replaces the file by rename: a reader of the old file sees it whole, no temp file is left", async (t) => {
  const storage = tempDir(t);
  const { trust } = trustIn(storage);
  await trust.allowAlways("/w/a", "one");
  const before = readFileSync(join(storage, TRUST_FILE), "utf8");
  const fd = openSync(join(storage, TRUST_FILE), "r");
  t.after(() => closeSync(fd));
  await trust.allowAlways("/w/a", "two");
  const buf = Buffer.alloc(before.length + 100);
  const n = readSync(fd, buf, 0, buf.length, 0);
  assert.equal(buf.subarray(0, n).toString("utf8"), before, "the old inode still holds the old document, unchanged");
  assert.deepEqual(
    onDisk(storage).always.map((a: { server: string }) => a.server),
    ["one", "two"],
  );
  assert.deepEqual(readdirSync(storage), [TRUST_FILE]);
});

test("updates at once from one window all land (writes run one after another)", async (t) => {
  const storage = tempDir(t);
  const { trust } = trustIn(storage);
  await Promise.all(["a", "b", "c", "d", "e"].map((s) => trust.allowAlways("/w", s)));
  await Promise.all(["f1", "f2", "f3"].map((f) => trust.rememberConsent("/w", f)));
  const doc = onDisk(storage);
  assert.deepEqual(doc.always.map((a: { server: string }) => a.server).sort(), ["a", "b", "c", "d", "e"]);
  assert.equal(doc.consent.length, 3);
});

for (const [what, content] of [
  ["not JSON", '{"version": 1, "consent": ['],
  ["JSON of another shape", JSON.stringify({ version: 1, consent: ["/w\u0000fp"], always: [] })],
] as const) {
  test(`a trust file that is ${what} is moved aside, said in the log, and read as empty`, async (t) => {
    const storage = tempDir(t);
    writeFileSync(join(storage, TRUST_FILE), content);
    const { trust, logged } = trustIn(storage);
    assert.equal(trust.consented("/w", "fp"), false);
    assert.equal(trust.alwaysAllowed("/w", "srv", "x"), false, "read once: said once");
    const aside = readdirSync(storage).filter((n) => n.startsWith(`${TRUST_FILE}.broken-`));
    assert.equal(aside.length, 1);
    assert.equal(readFileSync(join(storage, aside[0]!), "utf8"), content, "the broken file is kept as it was");
    assert.equal(logged.length, 1);
    assert.match(
      logged[0]!,
      new RegExp(`${TRUST_FILE} could not be read \\(.+\\): moved to .*broken-\\d+; MCP consent is asked again`),
    );
    await trust.rememberConsent("/w", "fp");
    assert.equal(onDisk(storage).consent.length, 1, "the next answer starts a fresh file");
    assert.equal(trust.consented("/w", "fp"), true);
  });
}

test("no storageUri (no folder open): the same document in workspaceState, no file anywhere", async () => {
  const context = fakeContext();
  const trust = McpTrust.of(context, () => assert.fail("nothing to log"));
  await trust.rememberConsent("/w", FP);
  await trust.allowAlways("/w", "srv", "t");
  const again = McpTrust.of(context, () => undefined);
  assert.equal(again.consented("/w", FP), true);
  assert.equal(again.alwaysAllowed("/w", "srv", "t"), true);
  const kept = context.workspaceState.get<{ consent: unknown[]; always: unknown[] }>("downcity.mcp.trust");
  assert.deepEqual(kept?.always, [{ folder: "/w", server: "srv", tool: "t" }]);
});

test("McpServers: Allow on the modal lands in storageUri's file; the next window starts the server unasked", async (t) => {
  const root = tempDir(t);
  const storage = tempDir(t);
  mkdirSync(join(root, ".vscode"));
  writeFileSync(join(root, ".vscode", "mcp.json"), JSON.stringify({ servers: { fx: fixtureServer() } }));
  const f = folder(root);
  const win = vscode.window as unknown as Record<string, (...a: unknown[]) => unknown>;
  const before = win.showWarningMessage;
  let asked = 0;
  win.showWarningMessage = async () => (asked++, "Allow");
  t.after(() => (win.showWarningMessage = before!));
  // The fixture server is a tsx child: on 2 busy cores its start can pass the product's 3 s first-run wait.
  fake.settings["downcity.mcp.firstRunWaitSeconds"] = 60;
  t.after(() => delete fake.settings["downcity.mcp.firstRunWaitSeconds"]);
  const open = () => {
    const s = new McpServers(windowOn(storage), {
      appendLine() {},
      show() {},
      dispose() {},
    } as unknown as vscode.OutputChannel);
    t.after(() => s.dispose());
    return s;
  };
  assert.ok((await open().tools(f)).tools.some((x) => x.name === "mcp__fx__ok"));
  assert.equal(asked, 1);
  assert.equal(onDisk(storage).consent[0].folder, root);
  assert.ok((await open().tools(f)).tools.some((x) => x.name === "mcp__fx__ok"));
  assert.equal(asked, 1, "the second window read the file: no second question");
});
