import assert from "node:assert/strict";
import { execSync } from "node:child_process";
import { appendFileSync, existsSync, linkSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CheckpointRecorder } from "../../core/checkpoints/recorder";
import { tempWorkspace } from "../agent/harness";
import { tempDir } from "../support/temp";
import { checkpoints, git, run, say, scriptedTurns, userMessageSeqs } from "./helpers";

// The recording of commands with the manifest kept warm between them (core/checkpoints/folder-watch.ts).

const read = (root: string, p: string) => (existsSync(join(root, p)) ? readFileSync(join(root, p), "utf8") : null);

function gitFolder(root: string, ignore: string): void {
  git(root, "init", "-q");
  writeFileSync(join(root, ".gitignore"), ignore);
  writeFileSync(join(root, "tracked.txt"), "committed\n");
  writeFileSync(join(root, "other.txt"), "other committed\n");
  git(root, "add", ".");
  git(root, "commit", "-qm", "base");
}

test("in a git folder whose .gitignore lists .downcity/ (the usual set-up), a command's changes are restorable from the private snapshot", async (t) => {
  const root = tempWorkspace(t);
  gitFolder(root, ".downcity/\n");
  const h = await scriptedTurns(t, root, [[run("c1", "echo changed > tracked.txt && rm other.txt"), say("done")]]);
  await h.turn("change");
  const [cp] = checkpoints(h.agent.session);
  assert.equal(cp!.note, undefined, "the snapshot did not fail");
  assert.ok(cp!.gitTree);
  assert.deepEqual(
    cp!.files.map((f) => [f.path, f.before.kind, f.after.kind]),
    [
      ["other.txt", "git", "absent"],
      ["tracked.txt", "git", "blob"],
    ],
  );
  const point = await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[0]!);
  await h.runtime.applyRestore(h.ref, await h.runtime.previewRestore(h.ref, point), { scope: "files" });
  assert.equal(read(root, "tracked.txt"), "committed\n");
  assert.equal(read(root, "other.txt"), "other committed\n");
});

test("in git, a file the user changed between two commands, and one the first command made, are restored to exactly what they held before the second command", async (t) => {
  const root = tempWorkspace(t);
  gitFolder(root, ".downcity/\n");
  const h = await scriptedTurns(t, root, [
    [run("c1", "printf 'made by one\\n' > made.txt"), say("one")],
    [run("c2", "printf 'two\\n' > made.txt && printf 'two\\n' > tracked.txt"), say("two")],
  ]);
  await h.turn("one");
  // The user's own edit between the commands: the watcher saw it, and its content is kept before command two.
  writeFileSync(join(root, "tracked.txt"), "the user's edit\n");
  await h.turn("two");
  const [, second] = checkpoints(h.agent.session);
  assert.deepEqual(
    second!.files.map((f) => [f.path, f.before.kind]),
    [
      ["made.txt", "blob"],
      ["tracked.txt", "blob"],
    ],
  );
  const point = await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[1]!);
  const plan = await h.runtime.previewRestore(h.ref, point);
  assert.deepEqual(
    plan.files.map((f) => [f.path, f.status]),
    [
      ["made.txt", "restore"],
      ["tracked.txt", "restore"],
    ],
  );
  await h.runtime.applyRestore(h.ref, plan, { scope: "files" });
  assert.equal(read(root, "made.txt"), "made by one\n");
  assert.equal(read(root, "tracked.txt"), "the user's edit\n");
});

/** Runs `command` in `root` between the recorder's two halves. */
async function recordCommand(recorder: CheckpointRecorder, root: string, command: string) {
  const pending = await recorder.before("command", {});
  execSync(command, { cwd: root, stdio: "ignore" });
  return pending!.finish();
}

test("a command that writes a file through a hard link outside the folder (no event here) is still recorded, by the watched recorder as by the one that walks the folder", async (t) => {
  const root = tempWorkspace(t);
  const outside = tempDir(t);
  gitFolder(root, ".downcity/\n");
  linkSync(join(root, "tracked.txt"), join(outside, "alias.txt"));
  const watched = new CheckpointRecorder({ root, sessionDir: join(root, ".downcity", "s1") });
  const unwatched = new CheckpointRecorder({ root, sessionDir: join(root, ".downcity", "s2"), watch: false });
  t.after(() => Promise.all([watched.dispose(), unwatched.dispose()]));
  const summary = (cp: Awaited<ReturnType<typeof recordCommand>>) =>
    cp.files.map((f) => [f.path, f.before.kind, f.after.kind]);
  for (const [recorder, n] of [
    [watched, 1],
    [unwatched, 2],
  ] as const) {
    await recordCommand(recorder, root, "true"); // warm: the folder walked, the private tree taken
    const cp = await recordCommand(
      recorder,
      root,
      `echo through-link-${n} >> ${JSON.stringify(join(outside, "alias.txt"))} && echo new > made-${n}.txt`,
    );
    assert.deepEqual(summary(cp), [
      [`made-${n}.txt`, "absent", "blob"],
      ["tracked.txt", "git", "blob"],
    ]);
  }
  appendFileSync(join(root, "other.txt"), "between\n");
  // Changed between commands (by the user, by the other recorder's command): their content then is kept.
  const a = await recordCommand(watched, root, "rm other.txt made-1.txt");
  assert.deepEqual(summary(a), [
    ["made-1.txt", "blob", "absent"],
    ["other.txt", "blob", "absent"],
  ]);
  const before = a.files.find((f) => f.path === "other.txt")!.before;
  assert.equal(before.kind, "blob");
  if (before.kind === "blob")
    assert.equal((await watched.blobs.get(before.sha256)).toString("utf8"), "other committed\nbetween\n");
});
