import assert from "node:assert/strict";
import { test } from "node:test";
import { Sessions } from "../../core/storage";
import { tempDir, tempWorkspace } from "../support/temp";
import { buildCli, runCli } from "./helpers";

/** Three sessions of two agents, one archived; "wombat" said five times in all, "wombats" once. */
async function seed(root: string): Promise<void> {
  let clock = 1_700_000_000_000;
  const sessions = new Sessions({ root, batchWindowMs: 1, clock: () => (clock += 1000) });
  const say = (agentId: string, id: string, texts: string[]) => {
    const s = sessions.create({ agentId, id });
    for (const text of texts) s.append("user/message", { content: [{ type: "text", text }] }, { surface: "append" });
  };
  say("code", "old", ["a wombat in the old one", "two wombats"]);
  say("code", "live", ["the wombat again", "wombat-shaped"]);
  say("ask", "other", ["an ask about a wombat", "error 42 in wombat.ts"]);
  await sessions.close();
  const again = new Sessions({ root });
  await again.archive({ agentId: "code", sessionId: "old" });
  await again.close();
}

/** The hits of a `--json` run, as `sessionId#seq`. */
async function hits(root: string, env: NodeJS.ProcessEnv, flags: string[]): Promise<string[]> {
  const run = await runCli(["sessions", "search", ...flags, "--cwd", root, "--json"], env);
  assert.equal(run.code, run.stdout ? 0 : 1, run.stderr);
  return run.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { sessionId: string; seq: number })
    .map((h) => `${h.sessionId}#${h.seq}`);
}

test("sessions search's flags, each seen to act on the real CLI: --agent, --archived, --all, --word, --regex, --limit", async (t) => {
  buildCli();
  const root = tempWorkspace(t);
  await seed(root);
  const env = { PATH: process.env.PATH, HOME: root, XDG_CACHE_HOME: tempDir(t, "downcity-cache-"), NO_COLOR: "1" };
  // Sessions made within a millisecond have no defined order between them: compared as sets.
  const same = async (flags: string[], want: string[]) =>
    assert.deepEqual((await hits(root, env, flags)).sort(), want.sort(), flags.join(" "));
  // Live sessions of every agent by default.
  await same(["wombat"], ["other#2", "other#1", "live#2", "live#1"]);
  await same(["wombat", "--agent", "code"], ["live#2", "live#1"]);
  await same(["wombat", "--archived"], ["old#2", "old#1"]);
  await same(["wombat", "--all", "--agent", "code"], ["live#2", "live#1", "old#2", "old#1"]);
  // Whole word: "wombats" is not "wombat"; "wombat-shaped" and "wombat.ts" are (a hyphen and a dot end a word).
  await same(["wombat", "--all", "--word"], ["other#2", "other#1", "live#2", "live#1", "old#1"]);
  await same(["error \\d+ in \\w+", "--regex"], ["other#2"]);
  // Within a session, newest message first; --limit stops the stream.
  const all = await hits(root, env, ["wombat", "--all"]);
  assert.equal(all.length, 6);
  assert.deepEqual(
    all.slice(0, 2).map((h) => h.split("#")[1]),
    ["2", "1"],
  );
  assert.deepEqual(await hits(root, env, ["wombat", "--all", "--limit", "3"]), all.slice(0, 3));
  // The plain output says where an archived hit is.
  const plain = await runCli(["sessions", "search", "two wombats", "--archived", "--cwd", root], env);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /old .*user #2 \(archived\)/);
});
