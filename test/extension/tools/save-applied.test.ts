import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { SAVE_LANDS_MS } from "../../../extension/tools/save-applied";
import { FakeDocument } from "../../support/vscode-fake/editor";
import { editorWorkspace, text } from "./helpers";

/**
 * Issue 19 item 2 under load: `TextDocument.save()` answers false, writing nothing, when it
 * arrives while the workbench's own save of the file (code-server's default auto save) runs
 * its save participants; that save writes the same text a moment later. The edit then
 * failed with "applied in the editor but could not be saved" although the file reached the
 * disk. The tools wait, bounded, for that save; a save that really failed still fails.
 */
function saveAnswers(
  t: { after(fn: () => unknown): void },
  behave: (doc: FakeDocument, real: () => Promise<boolean>) => Promise<boolean>,
): { calls: number } {
  const real = FakeDocument.prototype.save;
  const seen = { calls: 0 };
  FakeDocument.prototype.save = function (this: FakeDocument) {
    seen.calls++;
    return behave(this, () => real.call(this));
  };
  t.after(() => (FakeDocument.prototype.save = real));
  return seen;
}

/**
 * The race seen in approve-ui: the workbench's auto save is running its participants, so
 * every save the tool asks for meanwhile is dropped (false, nothing written); the auto save
 * writes on a later turn of the event loop and reports it (onDidSaveTextDocument).
 */
function autoSaveSwallowsSaves(t: { after(fn: () => unknown): void }): { calls: number } {
  let phase: "idle" | "participants" | "landed" = "idle";
  return saveAnswers(t, async (_doc, real) => {
    if (phase === "landed") return real();
    if (phase === "idle") {
      phase = "participants";
      setImmediate(() => void real().then(() => (phase = "landed")));
    }
    return false;
  });
}

it("a save the workbench's own save swallowed: the edit waits for that save to land and succeeds", async (t) => {
  const ws = editorWorkspace(t);
  const file = ws.write("src/a.ts", "one\n");
  autoSaveSwallowsSaves(t);
  const out = await ws.run("edit_file", { path: "src/a.ts", edits: [{ oldText: "one", newText: "two" }] });
  assert.doesNotMatch(text(out), /could not be saved/);
  assert.equal(readFileSync(file, "utf8"), "two\n");
  assert.equal((await ws.editor.open(file)).isDirty, false);
});

it("the undo of an edit waits for a swallowed save the same way", async (t) => {
  const ws = editorWorkspace(t);
  const file = ws.write("src/a.ts", "one\n");
  const result = await ws.reviewed(
    "edit_file",
    { path: "src/a.ts", edits: [{ oldText: "one", newText: "two" }] },
    { toolCallId: "call-u", answer: ({ toolCallId }) => ws.card(toolCallId, { approved: true }) },
  );
  assert.equal(result.output!.isError, undefined, text(result.output));
  autoSaveSwallowsSaves(t);
  assert.deepEqual(await ws.tools.undoEdit(ws.key("call-u")), { path: "src/a.ts" });
  assert.equal(readFileSync(file, "utf8"), "one\n");
});

it("a save that wrote the file but answered false (the buffer re-versioned meanwhile) is an applied edit, and the buffer ends clean", async (t) => {
  const ws = editorWorkspace(t);
  const file = ws.write("src/a.ts", "one\n");
  let first = true;
  const seen = saveAnswers(t, async (doc, real) => {
    await real();
    if (!first) return true;
    first = false;
    doc.isDirty = true; // written, but the workbench says the buffer is dirty again
    return false;
  });
  const out = await ws.run("edit_file", { path: "src/a.ts", edits: [{ oldText: "one", newText: "two" }] });
  assert.doesNotMatch(text(out), /could not be saved/);
  assert.equal(readFileSync(file, "utf8"), "two\n");
  assert.equal(seen.calls, 2, "saved once more so no unsaved dot stays");
});

it(`a save that wrote nothing, and no other save within ${SAVE_LANDS_MS} ms, still fails the edit, and says so`, async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const ws = editorWorkspace(t);
  const file = ws.write("src/a.ts", "one\n");
  let refused!: () => void;
  const firstRefusal = new Promise<void>((resolve) => (refused = resolve));
  const seen = saveAnswers(t, async () => {
    refused();
    return false;
  });
  const out = ws.run("edit_file", { path: "src/a.ts", edits: [{ oldText: "one", newText: "two" }] });
  await firstRefusal;
  await new Promise((resolve) => setImmediate(resolve)); // the tool is waiting for a save now
  t.mock.timers.tick(SAVE_LANDS_MS - 1);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(seen.calls, 1, "still waiting just before the bound");
  t.mock.timers.tick(1);
  assert.match(text(await out), /applied in the editor but could not be saved/);
  assert.equal(seen.calls, 2, "asked once more after the bound");
  assert.equal(readFileSync(file, "utf8"), "one\n", "nothing reached the disk");
});
