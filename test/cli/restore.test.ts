import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { tempWorkspace } from "../support/temp";
import { edit, say, scriptedTurns, userMessageSeqs } from "../checkpoints/helpers";
import { buildCli, cliEnv, runCli } from "./helpers";

before(buildCli);

test("downcity sessions restore: --dry-run previews and writes nothing, --files-only restores, --undo puts the files back, and the default continues the conversation in a fork", async (t) => {
  const root = tempWorkspace(t);
  writeFileSync(join(root, "a.txt"), "zero\n");
  writeFileSync(join(root, "b.txt"), "bee\n");
  const h = await scriptedTurns(t, root, [
    [edit("c1", "a.txt", "zero", "one"), say("one")],
    [edit("c2", "a.txt", "one", "two"), edit("c3", "b.txt", "bee", "bee2"), say("two")],
  ]);
  await h.turn("first");
  await h.turn("second");
  const id = h.agent.session.id;
  const to = (await h.runtime.restorePoint(h.ref, userMessageSeqs(h.agent.session)[1]!)).toString();
  await h.runtime.close();
  const env = cliEnv("http://127.0.0.1:9");
  const cli = (...args: string[]) => runCli(["sessions", ...args, "--cwd", root], env);

  const dry = await cli("restore", id, "--to", to, "--dry-run", "--json");
  assert.equal(dry.code, 0, dry.stderr);
  const preview = JSON.parse(dry.stdout);
  assert.deepEqual(
    preview.files.map((f: { path: string; status: string }) => [f.path, f.status]),
    [
      ["a.txt", "restore"],
      ["b.txt", "restore"],
    ],
  );
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "two\n", "a dry run writes nothing");

  const files = await cli("restore", id, "--to", to, "--files-only");
  assert.equal(files.code, 0, files.stderr);
  assert.match(files.stdout, /restored 2 files to seq \d+/);
  assert.deepEqual(
    [readFileSync(join(root, "a.txt"), "utf8"), readFileSync(join(root, "b.txt"), "utf8")],
    ["one\n", "bee\n"],
  );

  const undo = await cli("restore", id, "--undo");
  assert.equal(undo.code, 0, undo.stderr);
  assert.deepEqual(
    [readFileSync(join(root, "a.txt"), "utf8"), readFileSync(join(root, "b.txt"), "utf8")],
    ["two\n", "bee2\n"],
  );

  writeFileSync(join(root, "b.txt"), "mine\n");
  const forked = await cli("restore", id, "--to", to, "--json");
  assert.equal(forked.code, 0, forked.stderr);
  const result = JSON.parse(forked.stdout);
  assert.ok(result.fork.sessionId, "the conversation continues in a fork");
  assert.deepEqual(result.kept, ["b.txt"], "a conflict keeps the user's file without --overwrite");
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "mine\n");
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "one\n");

  const bad = await cli("restore", id, "--to", "x");
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--to must be a whole number/);
  const help = await runCli(["sessions", "--help"], env);
  assert.match(help.stdout, /restore ID --to SEQ \[--files-only\] \[--dry-run\]/);
});
