import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { Sessions } from "../../core/storage";
import { tempWorkspace } from "../support/temp";
import { tempDir } from "../support/temp";
import { buildCli, onTerminal, runCli } from "./helpers";

before(buildCli);

const HOSTILE = "pwned \x1b]0;evil title\x07 \x1b[2J\x1b[31mred\r\x1b[1A over\u202eesrever\u2066 bell\x07 \x9b31m csi";

async function seed(root: string): Promise<void> {
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  const s = sessions.create({ id: "evil\x1b[2J", agentId: "code" });
  s.append("user/message", { content: [{ type: "text", text: `find the needle ${HOSTILE}` }] }, { surface: "append" });
  s.append("session/title", { title: `needle ${HOSTILE}`, messageSeqs: [], source: { kind: "user" } });
  const t = sessions.create({ id: "other", agentId: "ask" });
  t.append(
    "assistant/message",
    { content: [{ type: "text", text: "a Needle in the ask agent" }] },
    { surface: "append" },
  );
  await sessions.close();
}

/** Escape sequences other than the CLI's own SGR styling (bold, dim, reset). */
const foreignControls = (text: string) =>
  text.replace(/\x1b\[(?:0|1|2|31|33)m/g, "").match(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g) ?? [];

test("sessions search prints hostile snippets, titles and ids inert: on a pipe, as JSON, and on a real terminal", async (t) => {
  const root = tempWorkspace(t);
  await seed(root);
  const cache = tempDir(t, "downcity-cache-");
  const env = { PATH: process.env.PATH, HOME: root, XDG_CACHE_HOME: cache, NO_COLOR: "1" };
  const plain = await runCli(["sessions", "search", "needle", "--cwd", root], env);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /find the needle pwned/);
  assert.deepEqual(foreignControls(plain.stdout), []);
  // Smart case: lower-case matches both agents' sessions; an upper-case letter only the exact one.
  assert.match(plain.stdout, /a Needle in the ask agent/);
  const exact = await runCli(["sessions", "search", "Needle", "--cwd", root, "--json"], env);
  const hits = exact.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    hits.map((h) => [h.agentId, h.sessionId, h.kind]),
    [["ask", "other", "assistant"]],
  );
  const json = await runCli(["sessions", "search", "needle", "--cwd", root, "--json", "--agent", "code"], env);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(foreignControls(json.stdout), []);
  const parsed = json.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.deepEqual(parsed.map((h) => h.kind).sort(), ["title", "user"]);
  assert.ok(parsed.every((h) => h.agentId === "code"));

  const term = onTerminal(["sessions", "search", "needle", "--cwd", root], {
    PATH: process.env.PATH,
    HOME: root,
    TERM: "xterm",
  });
  assert.equal(await term.done, 0);
  // The index went to the XDG cache, not the workspace.
  assert.ok(readdirSync(join(cache, "downcity", "search")).length === 1);
  assert.deepEqual(readdirSync(join(root, ".downcity")), ["agents"]);
  assert.match(term.screen(), /\x1b\[1mneedle\x1b\[0m/, "the match is bold on a terminal");
  assert.deepEqual(foreignControls(term.screen().replace(/\r\n/g, "\n")), []);
});

test("sessions search: usage errors and no match", async (t) => {
  const root = tempWorkspace(t);
  await seed(root);
  const env = { PATH: process.env.PATH, HOME: root, NO_COLOR: "1" };
  const bad = await runCli(["sessions", "search", "(a", "--regex", "--cwd", root], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /invalid regular expression: missing closing \)/);
  assert.equal((await runCli(["sessions", "search", "--cwd", root], env)).code, 2);
  assert.match(
    (await runCli(["sessions", "search", "x", "--archived", "--all", "--cwd", root], env)).stderr,
    /cannot be used together/,
  );
  assert.match(
    (await runCli(["sessions", "search", "x", "--limit", "0", "--cwd", root], env)).stderr,
    /--limit must be a positive whole number/,
  );
  const none = await runCli(["sessions", "search", "zebra", "--cwd", root], env);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /no match for "zebra"/);
  const help = await runCli(["sessions", "--help"], env);
  assert.match(help.stdout, /search QUERY \[--regex\] \[--word\] \[--limit N\] \[--archived \| --all\]/);
  const archived = await runCli(["sessions", "search", "needle", "--archived", "--cwd", root], env);
  assert.equal(archived.code, 1);
});
