// "Downcity: Search Sessions…" wired to the real core query over a real store: the
// QuickPick is the vscode fake's stand-in, driven as the user would (typing, toggling,
// accepting); the debounce runs on node:test's mock timers.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, mock, test } from "node:test";
import * as vscode from "vscode";
import { searchWorkspace } from "../../../core/runtime";
import type { SearchHit, SearchOptions } from "../../../core/runtime/types";
import { Sessions } from "../../../core/storage";
import { inert, searchSessionsPicker, type HitItem } from "../../../extension/search/search-picker";
import * as fake from "../../support/vscode-fake";
import { folder } from "../../support/extension/helpers";

/** The QuickPick the code under test creates: its state, and the events the user fires. */
class FakeQuickPick {
  value = "";
  title: string | undefined;
  placeholder: string | undefined;
  matchOnDescription = false;
  matchOnDetail = false;
  buttons: readonly (vscode.QuickInputButton & { toggle?: string })[] = [];
  private _busy = false;
  activeItems: HitItem[] = [];
  selectedItems: HitItem[] = [];
  shown = false;
  disposed = false;
  private _items: HitItem[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly value$ = new vscode.EventEmitter<string>();
  readonly accept$ = new vscode.EventEmitter<void>();
  readonly hide$ = new vscode.EventEmitter<void>();
  readonly button$ = new vscode.EventEmitter<vscode.QuickInputButton>();
  readonly onDidChangeValue = this.value$.event;
  readonly onDidAccept = this.accept$.event;
  readonly onDidHide = this.hide$.event;
  readonly onDidTriggerButton = this.button$.event;
  /** Every `items` assignment, in order (batches, not one per hit). */
  readonly assignments: HitItem[][] = [];

  get busy(): boolean {
    return this._busy;
  }
  set busy(next: boolean) {
    this._busy = next;
    this.changed.fire();
  }
  get items(): HitItem[] {
    return this._items;
  }
  set items(next: readonly HitItem[]) {
    this._items = [...next];
    this.assignments.push(this._items);
    this.activeItems = this._items.slice(0, 1);
    this.changed.fire();
  }
  show() {
    this.shown = true;
  }
  hide() {
    this.hide$.fire();
  }
  dispose() {
    this.disposed = true;
  }
  type(value: string) {
    this.value = value;
    this.value$.fire(value);
  }
  /** Resolves once `done()` holds, checked on every change of items or busy (the test's timeout bounds it). */
  until(done: () => boolean): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve) => {
      const check = this.changed.event(() => {
        if (!done()) return;
        check.dispose();
        resolve();
      });
    });
  }
}

let root: string;
let pick: FakeQuickPick;
const calls: SearchOptions[] = [];

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), "downcity-search-picker-"));
  const sessions = new Sessions({ root });
  const a = sessions.create({ id: "s-old" });
  a.append("user/message", { content: [{ type: "text", text: "Where does the quokka live?" }] }, { surface: "append" });
  a.append(
    "assistant/message",
    { content: [{ type: "text", text: "The quokka lives on Rottnest." }] },
    { surface: "append" },
  );
  a.append("session/title", {
    title: "Marsupials $(alert) [x](command:evil)",
    messageSeqs: [1],
    source: { kind: "user" },
  });
  await sessions.flush(a);
  // Compact the first two messages away: they are in a closed segment now.
  a.append("user/message", { content: [{ type: "text", text: "Thanks." }] }, { surface: "append" });
  await sessions.flush(a);
  await sessions.closePrefix(a, 3, "Talked about the quokka.");
  const b = sessions.create({ id: "s-new" });
  b.append(
    "user/message",
    { content: [{ type: "text", text: "A quokka $(zap) selfie, please" }] },
    { surface: "append" },
  );
  await sessions.flush(b);
  await sessions.close();
  pick = new FakeQuickPick();
  fake.window.createQuickPick = () => pick;
  calls.length = 0;
  mock.timers.enable({ apis: ["setTimeout"] });
});

afterEach(() => {
  mock.timers.reset();
  rmSync(root, { recursive: true, force: true });
});

/** The folder's runtime: the real core query, each call recorded. */
function searchFolder(wrap?: (found: AsyncIterable<SearchHit>, options: SearchOptions) => AsyncIterable<SearchHit>) {
  return {
    folder: folder(root, 0, "ws"),
    runtime: {
      search(options: SearchOptions) {
        calls.push(options);
        const found = searchWorkspace({ root }, options);
        return wrap ? wrap(found, options) : found;
      },
    },
  };
}

test(
  "typing runs one query after the quiet time; rows show title, snippet, agent, folder, time and the closed-history mark, inert",
  { timeout: 20_000 },
  async () => {
    const revealed: { hit: SearchHit; query: string }[] = [];
    const f = searchFolder();
    const done = searchSessionsPicker({
      folders: () => [f],
      reveal: async (_folder, hit, query) => void revealed.push({ hit, query }),
      now: () => Date.now(),
    });
    assert.ok(pick.shown);
    assert.equal(pick.matchOnDetail, true, "the picker highlights the typed text in the snippet");
    for (const value of ["q", "qu", "quo", "quokka"]) pick.type(value);
    mock.timers.tick(149);
    assert.equal(calls.length, 0, "nothing runs while the user is typing");
    mock.timers.tick(1);
    assert.equal(calls.length, 1, "one query for the burst");
    assert.equal(calls[0]!.query, "quokka");
    await pick.until(() => !pick.busy && pick.items.length >= 3);

    const rows = pick.items;
    // Newest session first.
    assert.equal(rows[0]!.hit!.sessionId, "s-new");
    assert.match(rows[0]!.detail!, /^You: A quokka \\\$\(zap\) selfie/, "a codicon in model text is escaped");
    assert.equal(rows[0]!.label, "Untitled session");
    const closed = rows.filter((r) => r.hit?.sessionId === "s-old" && r.hit.location === "closed");
    assert.ok(closed.length >= 2, "both compacted messages are found");
    for (const row of closed) {
      assert.equal(row.label, "Marsupials \\$(alert) [x](command:evil)");
      assert.match(row.description!, /^default · ws · just now · only in closed history$/);
      assert.equal((row.iconPath as vscode.ThemeIcon).id, "history");
      assert.equal(row.alwaysShow, true);
    }
    for (const row of rows)
      assert.doesNotMatch(`${row.label} ${row.description} ${row.detail}`, /(?<!\\)\$\(/, "no unescaped $( in any row");

    // Choosing a row opens it in the chat at its message.
    pick.selectedItems = [closed[0]!];
    pick.accept$.fire();
    await done;
    assert.deepEqual(
      revealed.map((r) => [r.hit.sessionId, r.hit.seq, r.query]),
      [["s-old", closed[0]!.hit!.seq, "quokka"]],
    );
    assert.ok(pick.disposed);
  },
);

test(
  "a keystroke cancels the running query through its AbortSignal; only the newest query's rows are shown",
  { timeout: 20_000 },
  async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const signals: AbortSignal[] = [];
    const f = searchFolder((found, options) => ({
      async *[Symbol.asyncIterator]() {
        signals.push(options.signal!);
        for await (const hit of found) {
          yield hit;
          // The first query stalls after its first hit, until released.
          if (options.query === "quokka") await gate;
        }
      },
    }));
    const done = searchSessionsPicker({ folders: () => [f], reveal: async () => {} });
    pick.type("quokka");
    mock.timers.tick(150);
    await pick.until(() => pick.items.length === 1);
    pick.type("Rottnest");
    assert.equal(signals[0]!.aborted, true, "the stale query is cancelled at the keystroke");
    mock.timers.tick(150);
    await pick.until(() => !pick.busy && pick.items.some((i) => /Rottnest/.test(i.detail ?? "")));
    release();
    assert.equal(signals[1]!.aborted, false);
    assert.ok(
      pick.items.every((i) => /Rottnest/.test(i.detail ?? "")),
      "no row of the cancelled query",
    );
    pick.hide();
    await done;
    assert.equal(signals[1]!.aborted, true, "closing the picker cancels what runs");
  },
);

test(
  "whole word and regex toggle from the title bar; a bad regex shows its error as the only row",
  { timeout: 20_000 },
  async () => {
    const f = searchFolder();
    const done = searchSessionsPicker({ folders: () => [f], reveal: async () => {} });
    const regex = pick.buttons.find((b) => b.toggle === "regex")!;
    pick.button$.fire(regex);
    assert.match(pick.buttons.find((b) => b.toggle === "regex")!.tooltip!, /on/);
    pick.type("quok(ka");
    mock.timers.tick(150);
    await pick.until(() => !pick.busy && pick.items.length === 1);
    assert.equal(calls.at(-1)!.regex, true);
    assert.equal((pick.items[0]!.iconPath as vscode.ThemeIcon).id, "error");
    assert.equal(pick.items[0]!.hit, undefined, "the error row opens nothing");
    pick.accept$.fire();

    pick.button$.fire(regex);
    pick.button$.fire(pick.buttons.find((b) => b.toggle === "word")!);
    pick.type("quok");
    mock.timers.tick(150);
    await pick.until(() => !pick.busy && pick.items.length === 1 && !pick.items[0]!.hit);
    assert.equal(calls.at(-1)!.word, true);
    assert.equal(calls.at(-1)!.regex, undefined);
    assert.equal(pick.items[0]!.label, "No session mentions this");
    pick.hide();
    await done;
  },
);

test("inert escapes every codicon, already-escaped ones included", () => {
  assert.equal(inert("a $(zap) b"), "a \\$(zap) b");
  // `\$(x)` would render as `$(x)`: escaped again it renders as the `\$(x)` it is.
  assert.equal(inert("\\$(x)"), "\\\\$(x)");
});
