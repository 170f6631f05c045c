// extension/tools/language-ready.ts on its own, with mock timers (issue 19 item 4): when it
// asks, how it backs off, where its bound ends, and that it leaves no timer behind once it
// has answered, timed out or been stopped (a lost race's bound timer kept the extension
// host's event loop busy for up to a minute per question).
import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import * as vscode from "vscode";
import { askLanguage, LANGUAGE_WAIT_MS } from "../../../extension/tools/language-ready";
import { Uri, commands, extensions, workspace } from "../../support/vscode-fake/index";

const FILE = vscode.Uri.file("/ws/src/geo.ts");

/** Timers set and neither fired nor cleared; counted over the mock timers (enabled first). */
function liveTimers(t: TestContext): Set<unknown> {
  const live = new Set<unknown>();
  const set = globalThis.setTimeout;
  const clear = globalThis.clearTimeout;
  globalThis.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const id = set(() => {
      live.delete(id);
      fn(...args);
    }, ms);
    live.add(id);
    return id;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((id: unknown) => {
    live.delete(id);
    clear(id as Parameters<typeof clearTimeout>[0]);
  }) as typeof clearTimeout;
  t.after(() => {
    globalThis.setTimeout = set;
    globalThis.clearTimeout = clear;
  });
  return live;
}

/** A fresh window: the file not open yet, its language `languageId`, one extension for it (not active). */
function freshWindow(
  t: TestContext,
  languageId: string,
  activate: () => Promise<void> = async () => {},
): { activations: number } {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"] });
  const saved = { openTextDocument: workspace.openTextDocument, textDocuments: workspace.textDocuments };
  workspace.openTextDocument = async (uri: Uri) => ({ uri, languageId });
  workspace.textDocuments = [];
  const ext = {
    isActive: false,
    activations: 0,
    packageJSON: { name: "lang", publisher: "test", main: "./main.js", activationEvents: [`onLanguage:${languageId}`] },
    async activate() {
      ext.activations++;
      await activate();
      ext.isActive = true;
    },
  };
  extensions.all = [ext];
  t.after(() => {
    Object.assign(workspace, saved);
    extensions.all = [];
  });
  return ext;
}

/** Registers a provider command for the test; `answer` gets the (mocked) time since the question was asked. */
function command(t: TestContext, id: string, answer: () => unknown): number[] {
  const asked: number[] = [];
  const reg = commands.registerCommand(id, () => {
    asked.push(Date.now());
    return answer();
  });
  t.after(() => reg.dispose());
  return asked;
}

/** Moves the mock clock 10 ms at a time until `p` settles, at most `maxMs` (so a hang fails, not spins). */
async function settle<T>(t: TestContext, p: Promise<T>, maxMs = 120_000): Promise<T> {
  let done = false;
  void p.then(
    () => (done = true),
    () => (done = true),
  );
  for (let ms = 0; ; ms += 10) {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    if (done) return p;
    if (ms >= maxMs) throw new Error(`still waiting after ${maxMs} mock ms`);
    t.mock.timers.tick(10);
  }
}

/** A mock-clock answer at `at` ms (a server that has its model then), or at once past it. */
const answerAt = (at: number, value: unknown) => () =>
  Date.now() >= at ? value : new Promise((ok) => setTimeout(() => ok(value), at - Date.now()));

test("ready: asks the outline with doubling backoff while the server starts, then the question once the full model answers; no timer left", async (t) => {
  const ext = freshWindow(t, "typescript");
  const live = liveTimers(t);
  const outline = command(t, "vscode.executeDocumentSymbolProvider", () => (Date.now() >= 300 ? [{ name: "a" }] : []));
  // The file's syntax is there at 300 ms, its project loaded at 500 ms (TypeScript's partial mode answers between).
  const fullModel = command(t, "typescript.tsserverRequest", answerAt(500, undefined));
  const query = command(t, "test.definitions", () => ["shapes.ts:1"]);
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never),
  );
  assert.deepEqual(answer, { items: ["shapes.ts:1"], state: "answered", languageId: "typescript" });
  assert.equal(ext.activations, 1);
  assert.deepEqual(outline, [0, 50, 150, 350], "50 ms, then doubling");
  assert.deepEqual(fullModel, [0], "the full model asked once, from the start");
  assert.deepEqual(query, [500], "asked once, when the server had the whole project");
  assert.equal(live.size, 0, "no timer left behind");
});

test("a file with no symbols: the full model answering is enough, the outline is not waited for until the bound", async (t) => {
  freshWindow(t, "typescript");
  const live = liveTimers(t);
  const outline = command(t, "vscode.executeDocumentSymbolProvider", () => []);
  const fullModel = command(t, "typescript.tsserverRequest", answerAt(200, undefined));
  const query = command(t, "test.symbols", () => []);
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.symbols") as never),
  );
  assert.equal(answer.state, "ready", "no symbols, and not a timeout");
  assert.deepEqual(outline, [0, 50, 150], "the backoff sleep ends when the full model answers");
  assert.deepEqual(fullModel, [0]);
  assert.deepEqual(query, [200]);
  assert.equal(live.size, 0, "no timer left behind");
});

test("a full model that fails (a file the server does not have open yet) is asked again at each backoff step", async (t) => {
  freshWindow(t, "typescript");
  const outline = command(t, "vscode.executeDocumentSymbolProvider", () => (Date.now() >= 100 ? [{ name: "a" }] : []));
  const fullModel = command(t, "typescript.tsserverRequest", () =>
    Date.now() < 100 ? Promise.reject(new Error("No Project.")) : answerAt(400, undefined)(),
  );
  const query = command(t, "test.definitions", () => ["shapes.ts:1"]);
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never),
  );
  assert.equal(answer.state, "answered");
  assert.deepEqual(outline, [0, 50, 150]);
  assert.deepEqual(fullModel, [0, 50, 150], "failed at 0 and 50 ms, then answered from 150 ms");
  assert.deepEqual(query, [400]);
});

test("ready with no result: 'ready' (not a timeout) at once, no timer left", async (t) => {
  freshWindow(t, "typescript");
  const live = liveTimers(t);
  command(t, "vscode.executeDocumentSymbolProvider", () => [{ name: "a" }]);
  command(t, "typescript.tsserverRequest", () => Promise.reject(new Error("no such request")));
  const query = command(t, "test.definitions", () => []);
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never),
  );
  assert.equal(answer.state, "ready");
  assert.deepEqual(query, [0]);
  assert.equal(live.size, 0, "no timer left behind");
});

test("timeout: an outline that never answers is asked until the bound (backoff capped at 1 s), then the question once", async (t) => {
  freshWindow(t, "plaintext");
  const live = liveTimers(t);
  const outline = command(t, "vscode.executeDocumentSymbolProvider", () => []);
  const query = command(t, "test.definitions", () => []);
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never, { waitMs: 3000 }),
  );
  assert.equal(answer.state, "timeout");
  assert.deepEqual(outline, [0, 50, 150, 350, 750, 1550, 2550, 3000]);
  assert.deepEqual(query, [3000]);
  assert.equal(live.size, 0, "no timer left behind");
});

test("timeout: a full model that never answers ends at the bound, not later", async (t) => {
  freshWindow(t, "typescript");
  const live = liveTimers(t);
  command(t, "vscode.executeDocumentSymbolProvider", () => [{ name: "a" }]);
  command(t, "typescript.tsserverRequest", () => new Promise(() => {}));
  const query = command(t, "test.definitions", () => []);
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never, { waitMs: 2000 }),
  );
  assert.equal(answer.state, "timeout");
  assert.deepEqual(query, [2000]);
  assert.equal(live.size, 0, "no timer left behind");
});

test("an activation that never ends is waited for within the bound only", async (t) => {
  freshWindow(t, "plaintext", () => new Promise(() => {}));
  const live = liveTimers(t);
  command(t, "vscode.executeDocumentSymbolProvider", () => [{ name: "a" }]);
  const query = command(t, "test.definitions", () => []);
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never, { waitMs: 5000 }),
  );
  assert.equal(answer.state, "ready");
  assert.deepEqual(query, [5000]);
  assert.equal(live.size, 0, "no timer left behind");
});

test("stopped (the run's signal aborted) while waiting: answers at once and clears its timers", async (t) => {
  freshWindow(t, "typescript");
  const live = liveTimers(t);
  const outline = command(t, "vscode.executeDocumentSymbolProvider", () => []);
  const query = command(t, "test.definitions", () => []);
  const stop = new AbortController();
  const asked = askLanguage(FILE, () => commands.executeCommand("test.definitions") as never, {
    signal: stop.signal,
  });
  for (let ms = 0; ms < 100; ms += 10) {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    t.mock.timers.tick(10);
  }
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r)); // now in the second backoff sleep
  assert.equal(live.size, 2, "one backoff timer and the wait note's timer while waiting");
  stop.abort();
  const answer = await asked; // no more ticks: the abort alone ends it
  assert.equal(answer.state, "timeout");
  assert.deepEqual(outline, [0, 50]);
  assert.deepEqual(query, [100]);
  assert.equal(live.size, 0, "no timer left behind");
});

test("a question still waiting after 1 s says so once, naming the language and the bound; a quick one says nothing", async (t) => {
  freshWindow(t, "typescript");
  const live = liveTimers(t);
  command(t, "vscode.executeDocumentSymbolProvider", () => (Date.now() >= 2500 ? [{ name: "a" }] : []));
  command(t, "typescript.tsserverRequest", answerAt(2500, undefined));
  command(t, "test.definitions", () => ["shapes.ts:1"]);
  const notes: [number, string][] = [];
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never, {
      onWait: (note) => notes.push([Date.now(), note]),
    }),
  );
  assert.equal(answer.state, "answered");
  assert.deepEqual(notes, [[1000, "waiting for the typescript language features to start (at most 120 s)…\n"]]);
  assert.equal(LANGUAGE_WAIT_MS, 120_000, "the bound the README and the tool descriptions state");
  assert.equal(live.size, 0, "no timer left behind");

  // Asked again, the server answers at once: no note, and its timer is gone.
  notes.length = 0;
  const again = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never, {
      onWait: (note) => notes.push([Date.now(), note]),
    }),
  );
  assert.equal(again.state, "answered");
  t.mock.timers.tick(5000);
  assert.deepEqual(notes, []);
  assert.equal(live.size, 0, "no timer left behind");
});

test("no note for a file no extension serves", async (t) => {
  freshWindow(t, "plaintext");
  extensions.all = [];
  const live = liveTimers(t);
  command(t, "test.definitions", () => new Promise((ok) => setTimeout(() => ok([]), 3000)));
  const notes: string[] = [];
  const answer = await settle(
    t,
    askLanguage(FILE, () => commands.executeCommand("test.definitions") as never, { onWait: (n) => notes.push(n) }),
  );
  assert.equal(answer.state, "no-support");
  assert.deepEqual(notes, [], "nothing is starting: no 'waiting' note");
  assert.equal(live.size, 0, "no timer left behind");
});

test("no note after a stop", async (t) => {
  freshWindow(t, "typescript");
  const live = liveTimers(t);
  const notes: string[] = [];
  command(t, "vscode.executeDocumentSymbolProvider", () => []);
  command(t, "test.definitions", () => []);
  const stop = new AbortController();
  const stopped = askLanguage(FILE, () => commands.executeCommand("test.definitions") as never, {
    signal: stop.signal,
    onWait: (n) => notes.push(n),
  });
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  stop.abort();
  await settle(t, stopped, 10_000);
  t.mock.timers.tick(2000);
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  assert.deepEqual(notes, [], "stopped before the second: no note");
  assert.equal(live.size, 0, "no timer left behind");
});
