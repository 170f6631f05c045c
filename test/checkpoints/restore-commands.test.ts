import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempWorkspace } from "../agent/harness";
import { checkpoints, git, run, say, scriptedTurns, userMessageSeqs } from "./helpers";

const read = (root: string, p: string) => (existsSync(join(root, p)) ? readFileSync(join(root, p), "utf8") : null);
const COMMAND =
  "echo changed > keep.txt && echo made > made.txt && rm gone.txt && mv old-name.txt new-name.txt && echo more >> untracked.txt";

/** Every byte of the repository state a snapshot must never touch. */
function repoState(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of ["index", "HEAD", "refs/stash", "logs/refs/stash", "ORIG_HEAD"])
    if (existsSync(join(root, ".git", f))) out[f] = readFileSync(join(root, ".git", f)).toString("base64");
  out.refs = git(root, "for-each-ref", "--format=%(refname) %(objectname)");
  out.stash = git(root, "stash", "list");
  out.objects = String(readdirSync(join(root, ".git", "objects")).length);
  // The session's own folder is the only new untracked path (a real user would ignore .downcity/).
  out.status = git(root, "--no-optional-locks", "status", "--porcelain=v1", "--untracked-files=all", "--ignored")
    .split("\n")
    .filter((l) => !l.includes(".downcity/"))
    .join("\n");
  return out;
}

test("in a git folder, a command that creates, modifies, deletes and renames files is fully restorable, and the user's index, stash, refs and untracked files are untouched byte for byte", async (t) => {
  const root = tempWorkspace(t);
  git(root, "init", "-q");
  writeFileSync(join(root, ".gitignore"), "ignored.log\n");
  for (const [f, c] of [
    ["keep.txt", "original\n"],
    ["gone.txt", "to be deleted\n"],
    ["old-name.txt", "renamed content\n"],
  ])
    writeFileSync(join(root, f!), c!);
  git(root, "add", ".");
  git(root, "commit", "-qm", "base");
  // A stash, a staged change and an untracked file: the user's own state.
  writeFileSync(join(root, "keep.txt"), "stashed edit\n");
  git(root, "stash", "-q");
  writeFileSync(join(root, "gone.txt"), "staged, not committed\n");
  git(root, "add", "gone.txt");
  writeFileSync(join(root, "untracked.txt"), "the user's untracked notes\n");
  writeFileSync(join(root, "ignored.log"), "ignored\n");
  const before = repoState(root);

  const h = await scriptedTurns(t, root, [[run("c1", COMMAND), say("done")]]);
  await h.turn("reorganise");
  // The command's own changes, as git sees them (the user's index itself unchanged).
  assert.equal(read(root, "new-name.txt"), "renamed content\n");
  const [cp] = checkpoints(h.agent.session);
  assert.ok(cp!.gitTree, "a private-index tree was taken before the command");
  assert.deepEqual(
    cp!.files.map((f) => [f.path, f.before.kind, f.after.kind]),
    [
      ["gone.txt", "git", "absent"],
      ["keep.txt", "git", "blob"],
      ["made.txt", "absent", "blob"],
      ["new-name.txt", "absent", "blob"],
      ["old-name.txt", "git", "absent"],
      ["untracked.txt", "git", "blob"],
    ],
  );
  assert.deepEqual([cp!.created, cp!.changed, cp!.deleted], [2, 2, 2]);
  const afterCommand = repoState(root);
  for (const key of ["index", "HEAD", "refs/stash", "logs/refs/stash", "refs", "stash", "objects"])
    assert.equal(afterCommand[key], before[key], `.git ${key} unchanged`);

  const plan = await h.runtime.previewRestore(
    h.ref,
    await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[0]!),
  );
  assert.deepEqual(
    plan.files.map((f) => f.status),
    Array(6).fill("restore"),
  );
  await h.runtime.applyRestore(h.ref, plan, { scope: "files" });
  assert.equal(read(root, "keep.txt"), "original\n");
  assert.equal(read(root, "gone.txt"), "staged, not committed\n", "the staged content, from the private snapshot");
  assert.equal(read(root, "old-name.txt"), "renamed content\n");
  assert.equal(read(root, "made.txt"), null);
  assert.equal(read(root, "new-name.txt"), null);
  assert.equal(read(root, "untracked.txt"), "the user's untracked notes\n");
  assert.deepEqual(repoState(root), before, "after the restore the repository is exactly as the user left it");
});

test("in a folder without git, created files are restorable (removed) and files a command changed or deleted are listed as not restorable, never guessed", async (t) => {
  const root = tempWorkspace(t);
  mkdirSync(join(root, "sub"));
  writeFileSync(join(root, "keep.txt"), "original\n");
  writeFileSync(join(root, "gone.txt"), "to be deleted\n");
  writeFileSync(join(root, "old-name.txt"), "renamed content\n");
  writeFileSync(join(root, "untracked.txt"), "notes\n");
  const h = await scriptedTurns(t, root, [[run("c1", COMMAND), say("done")]]);
  await h.turn("reorganise");
  const [cp] = checkpoints(h.agent.session);
  assert.equal(cp!.gitTree, undefined);
  assert.deepEqual(
    cp!.files.map((f) => [f.path, f.before.kind]),
    [
      ["gone.txt", "unknown"],
      ["keep.txt", "unknown"],
      ["made.txt", "absent"],
      ["new-name.txt", "absent"],
      ["old-name.txt", "unknown"],
      ["untracked.txt", "unknown"],
    ],
  );
  const plan = await h.runtime.previewRestore(
    h.ref,
    await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[0]!),
  );
  const status = Object.fromEntries(plan.files.map((f) => [f.path, f.status]));
  assert.deepEqual(status, {
    "gone.txt": "not-restorable",
    "keep.txt": "not-restorable",
    "made.txt": "restore",
    "new-name.txt": "restore",
    "old-name.txt": "not-restorable",
    "untracked.txt": "not-restorable",
  });
  assert.match(
    plan.files.find((f) => f.path === "keep.txt")!.reason!,
    /folder without git: its earlier content is not known/,
  );
  const outcome = await h.runtime.applyRestore(h.ref, plan, { scope: "files" });
  assert.deepEqual(outcome.notRestorable, ["gone.txt", "keep.txt", "old-name.txt", "untracked.txt"]);
  assert.equal(read(root, "made.txt"), null);
  assert.equal(read(root, "keep.txt"), "changed\n", "a file whose earlier content is unknown is left as it is");
});

test("a later edit of a file a command created is restored from its blob, and commands that change nothing record nothing", async (t) => {
  const root = tempWorkspace(t);
  const h = await scriptedTurns(t, root, [
    [run("c1", "printf 'made\\n' > made.txt"), say("one")],
    [
      run("c2", "true"),
      {
        toolCalls: [
          {
            id: "c3",
            name: "edit_file",
            arguments: { path: "made.txt", edits: [{ oldText: "made", newText: "edited" }] },
          },
        ],
      },
      say("two"),
    ],
  ]);
  await h.turn("one");
  await h.turn("two");
  const cps = checkpoints(h.agent.session);
  assert.equal(cps.length, 2, "the command that changed nothing has no checkpoint");
  const plan = await h.runtime.previewRestore(
    h.ref,
    await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[1]!),
  );
  await h.runtime.applyRestore(h.ref, plan, { scope: "files" });
  assert.equal(read(root, "made.txt"), "made\n");
  assert.ok(statSync(join(root, "made.txt")).isFile());
});
