import assert from "node:assert/strict";
import { readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { BlobStore } from "../../core/checkpoints/blob-store";
import { sessionPaths } from "../../core/storage/layout";
import { tempDir } from "../support/temp";
import { tempWorkspace } from "../agent/harness";
import { edit, say, scriptedTurns, userMessageSeqs } from "./helpers";

test("a blob whose content does not hash to its name, a blob that is a symbolic link and a missing blob are refused, never written", async (t) => {
  const root = tempWorkspace(t);
  for (const f of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(root, f), `${f} original\n`);
  const h = await scriptedTurns(t, root, [
    [
      edit("c1", "a.txt", "original", "x"),
      edit("c2", "b.txt", "original", "y"),
      edit("c3", "c.txt", "original", "z"),
      say("done"),
    ],
  ]);
  await h.turn("edit");
  const store = new BlobStore(join(sessionPaths(root, "code", h.agent.session.id).dir, "checkpoints"));
  const hashOf = (text: string) => {
    const events = h.agent.session.events().filter((e) => e.type === "tool/result");
    for (const e of events)
      for (const f of (e.data as any).checkpoint.files) if (f.path === text) return f.before.sha256 as string;
    throw new Error(text);
  };
  // Forged: a valid zstd frame of other bytes under a.txt's name.
  const zstd = require("@mongodb-js/zstd") as typeof import("@mongodb-js/zstd");
  writeFileSync(store.pathOf(hashOf("a.txt")), await zstd.compress(Buffer.from("evil content\n"), 3));
  // A link: b.txt's blob points at a file outside.
  const outside = join(tempDir(t), "secret");
  writeFileSync(outside, "b.txt original\n");
  rmSync(store.pathOf(hashOf("b.txt")));
  symlinkSync(outside, store.pathOf(hashOf("b.txt")));
  rmSync(store.pathOf(hashOf("c.txt")));

  const plan = await h.runtime.previewRestore(
    h.ref,
    await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[0]!),
  );
  const byPath = Object.fromEntries(plan.files.map((f) => [f.path, f]));
  assert.equal(byPath["a.txt"]!.status, "not-restorable");
  assert.match(byPath["a.txt"]!.reason!, /does not match its hash \(forged or damaged\): refused/);
  assert.equal(byPath["b.txt"]!.status, "not-restorable");
  assert.match(byPath["b.txt"]!.reason!, /symbolic link/);
  assert.match(byPath["c.txt"]!.reason!, /is missing/);
  await h.runtime.applyRestore(h.ref, plan, { scope: "files" });
  assert.deepEqual(
    ["a.txt", "b.txt", "c.txt"].map((f) => readFileSync(join(root, f), "utf8")),
    ["a.txt x\n", "b.txt y\n", "c.txt z\n"],
  );
});

test("a forged log naming a path outside the workspace or inside .git/ is not restorable: the sandbox refuses it", async (t) => {
  const root = tempWorkspace(t);
  writeFileSync(join(root, "a.txt"), "one\n");
  const h = await scriptedTurns(t, root, [[edit("c1", "a.txt", "one", "two"), say("done")]]);
  await h.turn("edit");
  const session = h.agent.session;
  const real = session.events().find((e) => e.type === "tool/result")!.data as any;
  for (const path of ["../outside.txt", ".git/config"]) {
    session.append("tool/result", {
      toolCallId: `forged-${path}`,
      toolName: "edit_file",
      content: [],
      checkpoint: { files: [{ path, before: real.checkpoint.files[0].before, after: { kind: "absent" } }] },
    });
  }
  const plan = await h.runtime.previewRestore(h.ref, await h.runtime.restorePoint(h.ref, userMessageSeqs(session)[0]!));
  const byPath = Object.fromEntries(plan.files.map((f) => [f.path, f]));
  assert.equal(byPath["../outside.txt"]!.status, "not-restorable");
  assert.match(byPath["../outside.txt"]!.reason!, /outside the workspace root/);
  assert.match(byPath[".git/config"]!.reason!, /protected/);
  assert.equal(byPath["a.txt"]!.status, "restore");
  // Nothing outside was ever created.
  assert.equal(readdirSync(join(root, "..")).includes("outside.txt"), false);
});
