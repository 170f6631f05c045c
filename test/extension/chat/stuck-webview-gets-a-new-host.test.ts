// Issue 19 (first5, round 4): after a window reload with the chat moved to an editor tab, the sidebar chat stayed
// blank on a quiet machine. code-server's webview hosts share one service worker; the sidebar's and the restored
// tab's load at the same instant, and one of them can wait for the worker forever, so the document we gave it never
// loads and never says hello. The host now gives a visible chat whose document has not said hello within a bound a
// new webview host (the sidebar: its view hidden and shown again, which makes VS Code drop and rebuild it).
// Here the order of events is played with the vscode fake and node:test's mock timers: resolve, html set, silence.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import * as vscode from "vscode";
import type { ChatController } from "../../../extension/chat/controller";
import { ASK_BOUND_MS, HELLO_BOUND_MS, MAX_HELLO_RECOVERIES } from "../../../extension/chat/hello-watchdog";
import { CHAT_VIEW_ID, ChatViewProvider } from "../../../extension/chat/views";
import { recordingActions } from "./helpers";

/** What resolveWebviewView is given: a webview whose document speaks when the test says so. */
function fakeView(visible: boolean) {
  const received = new vscode.EventEmitter<unknown>();
  const visibility = new vscode.EventEmitter<void>();
  const disposed = new vscode.EventEmitter<void>();
  const view = {
    visible,
    webview: {
      options: {},
      html: "",
      cspSource: "vscode-webview:",
      asWebviewUri: (uri: vscode.Uri) => uri,
      postMessage: async () => true,
      onDidReceiveMessage: received.event,
    },
    onDidChangeVisibility: visibility.event,
    onDidDispose: disposed.event,
    show: () => undefined,
  };
  return {
    view: view as unknown as vscode.WebviewView,
    hello: () => received.fire({ kind: "request", id: 1, method: "hello", params: {} }),
    setVisible: (shown: boolean) => {
      view.visible = shown;
      visibility.fire();
    },
    dispose: () => disposed.fire(),
  };
}

/** Only what a hello and a server's construction touch. */
const controller = {
  onDidChangeConfig: () => new vscode.Disposable(() => {}),
  onSessionChange: () => new vscode.Disposable(() => {}),
  config: async () => ({ providerConfigured: true, models: [], agents: [] }),
} as unknown as ChatController;

/**
 * A sidebar as VS Code runs it: the view's own toggle hides it (VS Code drops the view), its focus command shows it
 * again (a new view is resolved, its html set while shown). Records the commands in order.
 */
function sidebar(t: TestContext) {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const provider = new ChatViewProvider(vscode.Uri.file("/ext"), controller, recordingActions());
  t.after(() => provider.dispose());
  const ran: string[] = [];
  const views: ReturnType<typeof fakeView>[] = [];
  const resolve = (visible: boolean) => {
    const view = fakeView(visible);
    views.push(view);
    provider.resolveWebviewView(view.view);
    return view;
  };
  const commands = [
    vscode.commands.registerCommand(`${CHAT_VIEW_ID}.toggleVisibility`, () => {
      ran.push("toggleVisibility");
      views.at(-1)!.dispose();
    }),
    vscode.commands.registerCommand(`${CHAT_VIEW_ID}.focus`, () => {
      ran.push("focus");
      resolve(true);
    }),
  ];
  t.after(() => commands.forEach((c) => c.dispose()));
  // The recovery's two commands run on promise turns after the timer fires.
  const settle = async () => {
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return { resolve, ran, views, settle, tick: (ms: number) => t.mock.timers.tick(ms) };
}

test("a visible sidebar chat whose document never says hello gets a new webview host once the bound passes", async (t) => {
  const s = sidebar(t);
  const first = s.resolve(true);
  assert.match((first.view.webview as { html: string }).html, /webview\.js/, "the html is set at once");
  s.tick(HELLO_BOUND_MS);
  s.tick(ASK_BOUND_MS - 1);
  await s.settle();
  assert.deepEqual(s.ran, [], "not before the bound and the ask");
  s.tick(1);
  await s.settle();
  assert.deepEqual(s.ran, ["toggleVisibility", "focus"], "hidden, then shown: a new view");
  assert.equal(s.views.length, 2);
  // The new host's document speaks: nothing more happens.
  s.views[1]!.hello();
  s.tick(HELLO_BOUND_MS * 3);
  await s.settle();
  assert.deepEqual(s.ran, ["toggleVisibility", "focus"]);
});

test("a document that says hello within the bound, or a view hidden before it, is left alone", async (t) => {
  const s = sidebar(t);
  const view = s.resolve(true);
  s.tick(HELLO_BOUND_MS / 2);
  view.hello();
  s.tick(HELLO_BOUND_MS * 2);
  await s.settle();
  assert.deepEqual(s.ran, [], "a document that spoke is alive");

  // Hidden: VS Code dropped the document, there is nothing to wait for; shown again, it loads anew and must speak.
  view.setVisible(false);
  s.tick(HELLO_BOUND_MS * 2);
  await s.settle();
  assert.deepEqual(s.ran, []);
  view.setVisible(true);
  s.tick(HELLO_BOUND_MS);
  s.tick(ASK_BOUND_MS);
  await s.settle();
  assert.deepEqual(s.ran, ["toggleVisibility", "focus"], "a re-shown document that never spoke, nor answered");
});

test("a view resolved while hidden has no document yet: no bound runs until it is shown", async (t) => {
  const s = sidebar(t);
  const view = s.resolve(false);
  s.tick(HELLO_BOUND_MS * 2);
  await s.settle();
  assert.deepEqual(s.ran, []);
  view.setVisible(true);
  view.hello();
  s.tick(HELLO_BOUND_MS * 2);
  await s.settle();
  assert.deepEqual(s.ran, []);
});

test("a document that can never start is given a new host a bounded number of times, and a hello resets the count", async (t) => {
  const s = sidebar(t);
  s.resolve(true);
  for (let i = 0; i < MAX_HELLO_RECOVERIES + 2; i++) {
    s.tick(HELLO_BOUND_MS);
    s.tick(ASK_BOUND_MS);
    await s.settle();
  }
  assert.equal(s.ran.filter((c) => c === "focus").length, MAX_HELLO_RECOVERIES, "then it is left as it is");
  // One that finally speaks (hidden and shown by the user) earns its recoveries back.
  const last = s.views.at(-1)!;
  last.setVisible(false);
  last.setVisible(true);
  last.hello();
  last.setVisible(false);
  last.setVisible(true);
  s.tick(HELLO_BOUND_MS);
  s.tick(ASK_BOUND_MS);
  await s.settle();
  assert.equal(s.ran.filter((c) => c === "focus").length, MAX_HELLO_RECOVERIES + 1);
});
