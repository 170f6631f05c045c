// Issue 19 (first5, round 7): in first5-moved-picker-ui step 03 (load 27) the editor chat tab restored by a window
// reload showed its conversation, then went blank. The tab paints its saved state before its hello, and its hello
// reached the host after the 10 s bound: the hello watchdog took the running tab for stuck and replaced it, and the
// replacement (loading beside the sidebar's host, so slow too) was replaced again. The watchdog now asks a silent
// document (a `ping` it answers with `alive`) and replaces only one that answers nothing through a second bound;
// a replacement of a replacement still shows the conversation when it loads.
// Played with the vscode fake (a panel per createWebviewPanel) and node:test's mock timers.
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import * as vscode from "vscode";
import type { ChatHostMessage, ChatSnapshot, SessionRef } from "../../../core/protocol";
import type { ChatController } from "../../../extension/chat/controller";
import { EditorChats } from "../../../extension/chat/editor-panel";
import { ASK_BOUND_MS, HELLO_BOUND_MS } from "../../../extension/chat/hello-watchdog";
import { CHAT_VIEW_ID, ChatViewProvider } from "../../../extension/chat/views";
import { recordingActions } from "./helpers";

const REF: SessionRef = { folderKey: "file:///ws", agentId: "code", sessionId: "s1" };

/** A webview whose document speaks only when the test says so; what the host posts to it is kept. */
function fakeWebview() {
  const received = new vscode.EventEmitter<unknown>();
  const posted: ChatHostMessage[] = [];
  let id = 0;
  const webview = {
    options: {},
    html: "",
    cspSource: "vscode-webview:",
    asWebviewUri: (uri: vscode.Uri) => uri,
    postMessage: async (message: ChatHostMessage) => (posted.push(message), true),
    onDidReceiveMessage: received.event,
  };
  return {
    webview,
    posted,
    pinged: () => posted.some((m) => m.kind === "event" && m.event.type === "ping"),
    /** The document sends a request, as webview/rpc.ts does. */
    say: (method: string, params: unknown = {}) => received.fire({ kind: "request", id: ++id, method, params }),
    /** The host's answer to the document's last request. */
    answer: () => posted.filter((m) => m.kind === "response").at(-1) as { result?: unknown } | undefined,
  };
}

/** A controller with one session to show (what a hello and a server's construction touch). */
const controller = {
  onDidChangeConfig: () => new vscode.Disposable(() => {}),
  onSessionChange: () => new vscode.Disposable(() => {}),
  config: async () => ({ providerConfigured: true, models: [], agents: [] }),
  open: async (ref: SessionRef): Promise<ChatSnapshot> => ({
    ref,
    folderName: "ws",
    title: "Plan the restock rule",
    running: false,
    page: { events: [], firstSeq: 0, lastSeq: 0, hasOlder: false },
    pendingApprovals: [],
  }),
  watch: () => new vscode.Disposable(() => {}),
} as unknown as ChatController;

/** Settles the promise turns a hello or a recovery runs on after a timer fires. */
const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

function sidebar(t: TestContext) {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const provider = new ChatViewProvider(vscode.Uri.file("/ext"), controller, recordingActions());
  t.after(() => provider.dispose());
  const ran: string[] = [];
  const commands = [
    vscode.commands.registerCommand(`${CHAT_VIEW_ID}.toggleVisibility`, () => void ran.push("toggleVisibility")),
    vscode.commands.registerCommand(`${CHAT_VIEW_ID}.focus`, () => void ran.push("focus")),
  ];
  t.after(() => commands.forEach((c) => c.dispose()));
  const web = fakeWebview();
  const visibility = new vscode.EventEmitter<void>();
  const view = {
    visible: true,
    webview: web.webview,
    onDidChangeVisibility: visibility.event,
    onDidDispose: new vscode.EventEmitter<void>().event,
    show: () => undefined,
  };
  provider.resolveWebviewView(view as unknown as vscode.WebviewView);
  const flip = () => {
    view.visible = false;
    visibility.fire();
    view.visible = true;
    visibility.fire();
  };
  return { ran, web, flip };
}

test("a running sidebar chat that is silent through the bound is asked, answers, and is never replaced", async (t) => {
  const s = sidebar(t);
  s.web.say("hello");
  await settle();
  // A view-state change that did not reload the document (it says no second hello): the bound runs again.
  s.flip();
  t.mock.timers.tick(HELLO_BOUND_MS);
  await settle();
  assert.deepEqual(s.ran, [], "not replaced at the bound: asked first");
  assert.ok(s.web.pinged(), "the document was asked whether it runs");
  s.web.say("alive");
  await settle();
  assert.deepEqual(s.web.answer()?.result, {}, "its answer is answered, not an error");
  t.mock.timers.tick(ASK_BOUND_MS * 3);
  await settle();
  assert.deepEqual(s.ran, [], "a document that answered is alive");
});

test("a sidebar chat that is silent through the bound and through the ask gets a new host", async (t) => {
  const s = sidebar(t);
  t.mock.timers.tick(HELLO_BOUND_MS);
  await settle();
  assert.ok(s.web.pinged());
  t.mock.timers.tick(ASK_BOUND_MS - 1);
  await settle();
  assert.deepEqual(s.ran, []);
  t.mock.timers.tick(1);
  await settle();
  assert.deepEqual(s.ran, ["toggleVisibility", "focus"]);
});

/** Editor chats over the fake: every panel the host creates (restored or made) is kept, with its document. */
function editors(t: TestContext) {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  // The sidebar's placeholder names the conversation in the tab (workspace state kept across the reload).
  const memory = { get: () => undefined, set() {}, moved: () => ({ ref: REF }), setMoved() {} };
  const sidebar = new ChatViewProvider(vscode.Uri.file("/ext"), controller, recordingActions(), memory);
  const chats = new EditorChats(vscode.Uri.file("/ext"), controller, recordingActions(), sidebar);
  t.after(() => (chats.dispose(), sidebar.dispose()));
  const panels: (ReturnType<typeof fakeWebview> & { disposed: boolean; panel: vscode.WebviewPanel })[] = [];
  const panel = () => {
    const web = fakeWebview();
    const disposed = new vscode.EventEmitter<void>();
    const entry = { ...web, disposed: false, panel: undefined as unknown as vscode.WebviewPanel };
    const made = {
      title: "Downcity: Plan the restock rule",
      viewColumn: 1,
      active: true,
      visible: true,
      webview: web.webview,
      onDidChangeViewState: new vscode.EventEmitter<void>().event,
      onDidDispose: disposed.event,
      dispose: () => {
        if (entry.disposed) return;
        entry.disposed = true;
        disposed.fire();
      },
    };
    entry.panel = made as unknown as vscode.WebviewPanel;
    panels.push(entry);
    return entry.panel;
  };
  const window = vscode.window as unknown as Record<string, unknown>;
  const before = window.createWebviewPanel;
  window.createWebviewPanel = panel;
  t.after(() => (window.createWebviewPanel = before));
  return { chats, panels, restored: () => chats.restore(panel()) };
}

test("a restored editor chat whose hello comes after the bound keeps its tab: asked, it was still loading", async (t) => {
  const e = editors(t);
  e.restored();
  t.mock.timers.tick(HELLO_BOUND_MS);
  await settle();
  assert.equal(e.panels.length, 1, "no new panel at the bound");
  assert.ok(e.panels[0]!.pinged());
  // The tab painted its saved conversation; its hello arrives late, within the ask.
  t.mock.timers.tick(ASK_BOUND_MS / 2);
  e.panels[0]!.say("hello", { restore: REF });
  await settle();
  t.mock.timers.tick(ASK_BOUND_MS * 3);
  await settle();
  assert.equal(e.panels.length, 1, "never replaced");
  assert.equal(e.panels[0]!.disposed, false);
  assert.deepEqual((e.panels[0]!.answer()?.result as { snapshot?: ChatSnapshot }).snapshot?.ref, REF);
});

test("a replacement that is replaced again still shows the conversation when its document loads", async (t) => {
  const e = editors(t);
  e.restored();
  for (let i = 1; i <= 2; i++) {
    t.mock.timers.tick(HELLO_BOUND_MS);
    t.mock.timers.tick(ASK_BOUND_MS);
    await settle();
    assert.equal(e.panels.length, i + 1, `replacement ${i}`);
    assert.ok(e.panels[i - 1]!.disposed, "the silent one closes");
  }
  // The last one is slow, not stuck: it is left to load however long it takes, and shows the tab's conversation.
  t.mock.timers.tick((HELLO_BOUND_MS + ASK_BOUND_MS) * 3);
  await settle();
  assert.equal(e.panels.length, 3);
  const last = e.panels[2]!;
  last.say("hello");
  await settle();
  assert.deepEqual((last.answer()?.result as { snapshot?: ChatSnapshot }).snapshot?.ref, REF);
  assert.equal(last.disposed, false);
});
