import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { before, test } from "node:test";
import { Sessions } from "../../core/storage";
import { sessionPaths } from "../../core/storage/layout";
import { tempDir } from "../support/temp";
import { buildCli, CLI, runCli } from "./helpers";

before(buildCli);

/** A workspace of `ids` healthy sessions of the `code` agent, written by the real store. */
async function workspace(t: { after(fn: () => unknown): void }, ids: string[]): Promise<string> {
  const root = tempDir(t, "downcity-list-");
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  for (const id of ids)
    sessions
      .create({ id, agentId: "code" })
      .append("user/message", { content: [{ type: "text", text: `hello ${id}` }] }, { surface: "append" });
  await sessions.close();
  return root;
}

/** `sessions list --json` as a real process, with the bundles it loaded (its module cache at exit). */
async function listLoading(t: { after(fn: () => unknown): void }, root: string) {
  const dir = tempDir(t, "downcity-preload-");
  const preload = join(dir, "record.cjs");
  const out = join(dir, "loaded.txt");
  writeFileSync(
    preload,
    `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(out)}, Object.keys(require.cache).join("\\n")));\n`,
  );
  const r = await runCli(["sessions", "list", "--json", "--cwd", root], {
    PATH: process.env.PATH,
    NO_COLOR: "1",
    NODE_OPTIONS: `--require ${preload}`,
  });
  assert.equal(r.code, 0, r.stderr);
  const dist = join(CLI, "..");
  const bundles = readFileSync(out, "utf8")
    .split("\n")
    .filter((f) => f.startsWith(dist))
    .map((f) => basename(f))
    .sort();
  return { items: JSON.parse(r.stdout) as { sessionId: string; damaged?: string }[], bundles };
}

test("sessions list over healthy sessions loads only the entry and the list bundle, which holds no zod", async (t) => {
  const root = await workspace(t, ["a", "b", "c"]);
  const { items, bundles } = await listLoading(t, root);
  assert.deepEqual(items.map((i) => i.sessionId).sort(), ["a", "b", "c"]);
  assert.deepEqual(bundles, ["cli-sessions.js", "cli.js"]);
  // zod's classes carry their names as strings, so a bundle with zod in it shows them.
  const dist = join(CLI, "..");
  assert.doesNotMatch(readFileSync(join(dist, "cli-sessions.js"), "utf8"), /\$Zod/);
  assert.match(
    readFileSync(join(dist, "cli-sessions-manage.js"), "utf8"),
    /\$Zod/,
    "the check can see zod where it is",
  );
});

test("a session whose meta.json is garbage is still listed: the list loads the log parser for it", async (t) => {
  const root = await workspace(t, ["a", "b"]);
  writeFileSync(sessionPaths(root, "code", "b").meta, "{not json");
  const { items, bundles } = await listLoading(t, root);
  assert.deepEqual(items.map((i) => [i.sessionId, i.damaged]).sort(), [
    ["a", undefined],
    ["b", undefined],
  ]);
  assert.deepEqual(bundles, ["cli-list-rebuild.js", "cli-sessions.js", "cli.js"]);
});

test("the store-only commands' bundle holds no provider SDK: restore and compact require the runtime's bundle", () => {
  const dist = join(CLI, "..");
  const manage = readFileSync(join(dist, "cli-sessions-manage.js"), "utf8");
  // The OpenAI SDK's default base URL is a string in any bundle that holds it.
  assert.doesNotMatch(
    manage,
    /api\.openai\.com/,
    "show, rename, fork, archive, delete and export open the store alone",
  );
  assert.match(readFileSync(join(dist, "cli-runtime.js"), "utf8"), /api\.openai\.com/, "the check can see the SDK");
  assert.equal(manage.match(/require\("\.\/cli-runtime\.js"\)/g)?.length, 2, "restore and compact, each when it runs");
});
