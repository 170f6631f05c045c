import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { RestoreEndData, RestoreStartData } from "../../core/protocol";
import { sessionPaths } from "../../core/storage/layout";
import { tempWorkspace } from "../agent/harness";
import { checkpoints, edit, say, scriptedTurns, userMessageSeqs, write } from "./helpers";

const read = (root: string, p: string) => (existsSync(join(root, p)) ? readFileSync(join(root, p), "utf8") : null);

test("edits and writes over three turns are recorded as blobs; restoring to the second turn's message puts every file back as it was, and Undo Restore returns them", async (t) => {
  const root = tempWorkspace(t);
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src/a.txt"), "alpha\n");
  const h = await scriptedTurns(t, root, [
    [edit("c1", "src/a.txt", "alpha", "alpha one"), say("one")],
    [edit("c2", "src/a.txt", "alpha one", "alpha two"), write("c3", "src/new.txt", "created in two\n"), say("two")],
    [
      write("c4", "src/new.txt", "rewritten in three\n"),
      edit("c5", "src/a.txt", "alpha two", "alpha three"),
      say("three"),
    ],
  ]);
  await h.turn("first");
  await h.turn("second");
  await h.turn("third");
  const session = h.agent.session;
  assert.equal(read(root, "src/a.txt"), "alpha three\n");
  const recorded = checkpoints(session);
  assert.equal(recorded.length, 5, "every edit and write is recorded");
  assert.deepEqual(recorded[2]!.files[0]!.before, { kind: "absent" }, "a created file was absent before");
  assert.equal(recorded[0]!.files[0]!.before.kind, "blob");
  // Blobs are deduplicated: "alpha one" is the after of c1 and the before of c2, stored once.
  const blobs = join(sessionPaths(root, "code", session.id).dir, "checkpoints", "blobs");
  const stored = readdirSync(blobs).flatMap((d) => readdirSync(join(blobs, d)));
  assert.equal(
    stored.length,
    new Set(
      recorded.flatMap((c) =>
        c.files
          .flatMap((f) => [f.before, f.after])
          .filter((r) => r.kind === "blob")
          .map((r) => (r as { sha256: string }).sha256),
      ),
    ).size,
  );

  // "Restore to here" on the second user message: the files as they were when it was sent.
  const second = userMessageSeqs(session)[1]!;
  const toSeq = await h.runtime.restorePoint(h.ref, second);
  const plan = await h.runtime.previewRestore(h.ref, toSeq);
  assert.deepEqual(
    plan.files.map((f) => [f.path, f.status]),
    [
      ["src/a.txt", "restore"],
      ["src/new.txt", "restore"],
    ],
  );
  assert.equal(read(root, "src/a.txt"), "alpha three\n", "a preview writes nothing");
  const outcome = await h.runtime.applyRestore(h.ref, plan, { scope: "files" });
  assert.deepEqual(outcome.restored, ["src/a.txt", "src/new.txt"]);
  assert.equal(read(root, "src/a.txt"), "alpha one\n");
  assert.equal(read(root, "src/new.txt"), null, "a file created after the point is removed");
  const start = session.events().find((e) => e.type === "restore/start")!;
  assert.equal((start.data as RestoreStartData).toSeq, toSeq);
  assert.equal(session.events().filter((e) => e.type === "restore/file").length, 2);
  assert.equal((session.events().at(-1)!.data as RestoreEndData).outcome, "done");

  // Undo Restore: everything back as the restore found it.
  const undo = await h.runtime.previewUndoRestore(h.ref);
  assert.equal(undo.undoOf, start.seq);
  assert.deepEqual(
    undo.plan.files.map((f) => [f.path, f.status]),
    [
      ["src/a.txt", "restore"],
      ["src/new.txt", "restore"],
    ],
  );
  await h.runtime.applyRestore(h.ref, undo.plan, { scope: "files", undoOf: undo.undoOf });
  assert.equal(read(root, "src/a.txt"), "alpha three\n");
  assert.equal(read(root, "src/new.txt"), "rewritten in three\n");
  await assert.rejects(h.runtime.previewUndoRestore(h.ref), /no restore to undo/);

  // Restoring to the very start (before the first message) gives the original file.
  const first = await h.runtime.restorePoint(h.ref, userMessageSeqs(session)[0]!);
  const back = await h.runtime.previewRestore(h.ref, first);
  await h.runtime.applyRestore(h.ref, back, { scope: "files" });
  assert.equal(read(root, "src/a.txt"), "alpha\n");
});

test("a file the user changed after the agent is a conflict: no choice refuses, keep mine keeps it, take checkpoint overwrites it", async (t) => {
  const root = tempWorkspace(t);
  writeFileSync(join(root, "a.txt"), "one\n");
  writeFileSync(join(root, "b.txt"), "bee\n");
  const h = await scriptedTurns(t, root, [
    [edit("c1", "a.txt", "one", "two"), edit("c2", "b.txt", "bee", "bee2"), say("done")],
  ]);
  await h.turn("change them");
  writeFileSync(join(root, "a.txt"), "the user's own\n");
  const toSeq = await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[0]!);
  const plan = await h.runtime.previewRestore(h.ref, toSeq);
  assert.deepEqual(
    plan.files.map((f) => [f.path, f.status]),
    [
      ["a.txt", "conflict"],
      ["b.txt", "restore"],
    ],
  );
  await assert.rejects(
    h.runtime.applyRestore(h.ref, plan, { scope: "files" }),
    /choose "keep mine" or "take checkpoint" for each conflict first: a\.txt/,
  );
  assert.equal(read(root, "b.txt"), "bee2\n", "a refused restore writes nothing");
  const kept = await h.runtime.applyRestore(h.ref, plan, { scope: "files", choices: { "a.txt": "mine" } });
  assert.deepEqual([kept.restored, kept.kept], [["b.txt"], ["a.txt"]]);
  assert.equal(read(root, "a.txt"), "the user's own\n");
  assert.equal(read(root, "b.txt"), "bee\n");

  const again = await h.runtime.previewRestore(h.ref, toSeq);
  assert.deepEqual(
    again.files.map((f) => [f.path, f.status]),
    [["a.txt", "conflict"]],
  );
  await h.runtime.applyRestore(h.ref, again, { scope: "files", choices: { "a.txt": "checkpoint" } });
  assert.equal(read(root, "a.txt"), "one\n");
  // The user's text was kept as a blob: undo brings it back.
  const undo = await h.runtime.previewUndoRestore(h.ref);
  await h.runtime.applyRestore(h.ref, undo.plan, { scope: "files", undoOf: undo.undoOf });
  assert.equal(read(root, "a.txt"), "the user's own\n");
});

test("a file changed between the preview and the confirm stops the restore before anything is written", async (t) => {
  const root = tempWorkspace(t);
  writeFileSync(join(root, "a.txt"), "one\n");
  writeFileSync(join(root, "b.txt"), "bee\n");
  const h = await scriptedTurns(t, root, [
    [edit("c1", "a.txt", "one", "two"), edit("c2", "b.txt", "bee", "bee2"), say("done")],
  ]);
  await h.turn("change them");
  const plan = await h.runtime.previewRestore(
    h.ref,
    await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[0]!),
  );
  writeFileSync(join(root, "b.txt"), "typed meanwhile\n");
  await assert.rejects(
    h.runtime.applyRestore(h.ref, plan, { scope: "files" }),
    /b\.txt changed after the preview; nothing was restored/,
  );
  assert.equal(read(root, "a.txt"), "two\n");
  assert.equal(
    h.agent.session.events().some((e) => e.type === "restore/start"),
    false,
  );
});
