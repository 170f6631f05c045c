import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { it } from "node:test";
import { FakeDocument } from "../../support/vscode-fake/editor";
import { editorWorkspace, text } from "./helpers";

/**
 * Issue 19 item 2 under load: `TextDocument.save()` answers false when the buffer is still
 * dirty after its save ran, also when the save did write the file (the workbench bumped the
 * buffer's version meanwhile). The edit then failed with "applied in the editor but could not
 * be saved" although the file was on disk. The disk decides now; a real failure still fails.
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

it("a save that wrote nothing still fails the edit, and says so", async (t) => {
  const ws = editorWorkspace(t);
  const file = ws.write("src/a.ts", "one\n");
  saveAnswers(t, async () => false);
  const out = await ws.run("edit_file", { path: "src/a.ts", edits: [{ oldText: "one", newText: "two" }] });
  assert.match(text(out), /applied in the editor but could not be saved/);
  assert.equal(readFileSync(file, "utf8"), "one\n", "nothing reached the disk");
});
