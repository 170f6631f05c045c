// Issue 20: one click on the Downcity icon opens the Sessions tree and the sidebar chat, and the chat's document (a
// 440 KB script) was given to the renderer while it was drawing the tree's first row. The chat's first document now
// waits for the tree's first draw (the workbench asked for the root and its open rows), never longer than
// CHAT_HOLD_MS, and only CHAT_ASK_MS when the workbench never asks for the root (a hidden or collapsed tree). Real tree over a real store; the bound with mock timers.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import * as vscode from "vscode";
import { createWorkspaceRuntime } from "../../../core/runtime";
import type { ChatController } from "../../../extension/chat/controller";
import { CHAT_ASK_MS, CHAT_HOLD_MS, ChatViewProvider } from "../../../extension/chat/views";
import { ProviderConfig } from "../../../extension/config/providers";
import { FolderRegistry } from "../../../extension/folders/registry";
import type { SessionTreeNode } from "../../../extension/sessions/nodes";
import { SessionsTree } from "../../../extension/sessions/tree";
import { manySessions } from "../../support/many-sessions";
import { tempDir } from "../../support/temp";
import { fakeContext, folder, setFolders } from "../../support/extension/helpers";
import { recordingActions } from "./helpers";

/** Only what a server's construction touches. */
const controller = {
  onDidChangeConfig: () => new vscode.Disposable(() => {}),
  onSessionChange: () => new vscode.Disposable(() => {}),
} as unknown as ChatController;

/** A visible webview view that counts the documents it is given. */
function countingView() {
  let documents = 0;
  const webview = {
    options: {},
    cspSource: "vscode-webview:",
    asWebviewUri: (uri: vscode.Uri) => uri,
    postMessage: async () => true,
    onDidReceiveMessage: new vscode.EventEmitter<unknown>().event,
    set html(_: string) {
      documents++;
    },
  };
  const view = {
    visible: true,
    webview,
    onDidChangeVisibility: new vscode.EventEmitter<void>().event,
    onDidDispose: new vscode.EventEmitter<void>().event,
    show: () => undefined,
  };
  return { view: view as unknown as vscode.WebviewView, documents: () => documents };
}

async function treeOf(t: TestContext) {
  const root = tempDir(t);
  const now = Date.now();
  await manySessions(root, 3, (i) => now - i * 60_000);
  setFolders([folder(root)]);
  const context = fakeContext();
  const runtimes = new FolderRegistry(
    createWorkspaceRuntime,
    new ProviderConfig(context.secrets, context.workspaceState, {}),
  );
  const tree = new SessionsTree(runtimes, { coalesceMs: 1 });
  t.after(async () => {
    tree.dispose();
    await runtimes.close();
    runtimes.dispose();
  });
  return tree;
}

/** Promise turns: what a settled promise's continuations do has run. */
const turns = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/**
 * A sidebar chat provider whose first document waits on a real tree as activate.ts wires it (mock timers on), its
 * view resolved, and the tree's first page in.
 */
async function heldChat(t: TestContext) {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const tree = await treeOf(t);
  const provider = new ChatViewProvider(vscode.Uri.file("/ext"), controller, recordingActions(), undefined, () =>
    tree.firstDrawn(CHAT_ASK_MS, CHAT_HOLD_MS),
  );
  t.after(() => provider.dispose());
  const chat = countingView();
  provider.resolveWebviewView(chat.view);
  await tree.firstRows;
  return { tree, provider, chat };
}

test("the sidebar chat's first document waits for the Sessions tree's first draw: none before the workbench asked for the root's open rows, one right after", async (t) => {
  const { tree, provider, chat } = await heldChat(t);
  await turns();
  assert.equal(chat.documents(), 0, "no document while the tree has not been drawn");

  // The workbench draws: the root, then the children of each open row it was handed.
  const rows = await tree.getChildren();
  const open = rows.filter(
    (n: SessionTreeNode) => tree.getTreeItem(n).collapsibleState === vscode.TreeItemCollapsibleState.Expanded,
  );
  assert.ok(open.length > 0, "the root hands out an open group (Today)");
  await turns();
  assert.equal(chat.documents(), 0, "none while an open row's children are not asked for");
  await Promise.all(open.map((n) => tree.getChildren(n)));
  await turns();
  assert.equal(chat.documents(), 1, "the document once the tree's first rows are handed out, with no timer run");

  // Shown again later (VS Code drops a hidden view and resolves a new one): alone on the screen, it does not wait.
  const again = countingView();
  provider.resolveWebviewView(again.view);
  assert.equal(again.documents(), 1);
});

test("a tree asked for its root whose open rows are never asked for holds the chat's document CHAT_HOLD_MS at most", async (t) => {
  const { tree, provider, chat } = await heldChat(t);
  await tree.getChildren();
  await turns();
  t.mock.timers.tick(CHAT_HOLD_MS - 1);
  await turns();
  assert.equal(chat.documents(), 0, "still waiting just before the bound (past CHAT_ASK_MS: the root was asked)");
  t.mock.timers.tick(1);
  await turns();
  assert.equal(chat.documents(), 1, "the document at the bound");
});

test("a collapsed or hidden Sessions view (the root never asked for) holds the chat's document CHAT_ASK_MS only", async (t) => {
  const { tree, provider, chat } = await heldChat(t);
  await turns();
  t.mock.timers.tick(CHAT_ASK_MS - 1);
  await turns();
  assert.equal(chat.documents(), 0, "still waiting just before CHAT_ASK_MS");
  t.mock.timers.tick(1);
  await turns();
  assert.equal(chat.documents(), 1, "the document at CHAT_ASK_MS, not CHAT_HOLD_MS");
});

test("without a hold (an editor chat, a provider given none) the document is set at once", (t) => {
  const provider = new ChatViewProvider(vscode.Uri.file("/ext"), controller, recordingActions());
  t.after(() => provider.dispose());
  const chat = countingView();
  provider.resolveWebviewView(chat.view);
  assert.equal(chat.documents(), 1);
});
