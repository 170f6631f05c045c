import assert from "node:assert/strict";
import { appendFileSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { searchWorkspace } from "../../core/runtime";
import { createMatcher } from "../../core/search/matcher";
import { fold } from "../../core/search/fold";
import { FOLDS_TO_ASCII, rawTest } from "../../core/search/raw-test";
import { unitCache } from "../../core/search/unit-cache";
import { Sessions, sessionPaths } from "../../core/storage";
import { tempDir } from "../support/temp";
import { bruteForce, collect, keyOf, makeCorpus } from "./corpus";

const bytes = (s: string) => Buffer.from(s, "utf8");
const testOf = (query: string, more: { regex?: boolean; caseSensitive?: boolean } = {}) =>
  rawTest(createMatcher({ query, ...more }));

test("the stored-bytes test rules a unit out only when no field can hold the query", () => {
  const kilo = testOf("kilo")!;
  assert.equal(kilo(bytes('{"text":"alpha bravo"}')), false);
  assert.equal(kilo(bytes('{"text":"a KILO b"}')), true, "folded: upper-case bytes match");
  assert.equal(kilo(bytes('{"text":"\\u006bilo"}')), true, "an escape that may spell a letter: decoded");
  assert.equal(kilo(bytes('{"text":"\\u001b[31m red"}')), false, "an escaped control character spells no letter");
  assert.equal(kilo(bytes('{"text":"\u212Aelvin ilo"}')), true, "the Kelvin sign folds to k: decoded");
  assert.equal(testOf("stop")!(bytes('{"text":"\u017Ftop"}')), true, "ſ folds to s: decoded");
  // Only letter runs are looked for: "SKU-77" needs "sku"; digits and JSON punctuation are never required.
  assert.equal(testOf("sku-77")!(bytes('{"text":"SKU-0"}')), true);
  assert.equal(testOf("sku-77")!(bytes('{"text":"SK-77"}')), false);
  assert.equal(testOf("1234"), undefined);
  assert.equal(testOf('{"":[]}'), undefined, "tool-call JSON is re-serialised: its punctuation is never required");
  assert.equal(testOf('{"path":')!(bytes('"pa th"')), false);
  // Case-sensitive (smart case) looks for the exact UTF-8 bytes, non-ASCII included.
  const strasse = testOf("Straße")!;
  assert.equal(strasse(bytes('{"text":"straße"}')), false);
  assert.equal(strasse(bytes('{"text":"eine Straße"}')), true);
  // A regex: every required literal's runs.
  const re = testOf("quasar \\w+ zeta", { regex: true })!;
  assert.equal(re(bytes("quasar only")), false);
  assert.equal(re(bytes("QUASAR and ZETA")), true);
  assert.equal(testOf("a|b", { regex: true }), undefined, "an alternation requires nothing");
});

test("the characters that fold to an ASCII letter are exactly the ones the test falls back for", () => {
  const found: Record<string, string> = {};
  for (let c = 0x80; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const f = fold(String.fromCharCode(c));
    if (f.charCodeAt(0) < 0x80) found[f] = (found[f] ?? "") + String.fromCharCode(c);
  }
  assert.deepEqual(found, FOLDS_TO_ASCII);
  assert.equal(testOf("ix")!(bytes("\u0131x")), true, "dotless i folds to i: decoded");
});

/** Appends a hand-written record (as a forged or foreign writer would spell it) to a session's Active. */
function appendRaw(root: string, sessionId: string, line: (seq: number) => string): void {
  const paths = sessionPaths(root, "code", sessionId);
  const last = readFileSync(paths.active, "utf8").trim().split("\n").at(-1)!;
  appendFileSync(paths.active, `${line((JSON.parse(last) as { seq: number }).seq + 1)}\n`);
}

test("a cold search with the stored-bytes test still equals brute force, escapes, odd folds and foreign JSON included", async (t) => {
  const root = tempDir(t);
  await makeCorpus(root, { sessions: 10 });
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  // One trick per session, so that none lets another's unit through.
  const say = (id: string, text: string) =>
    sessions
      .create({ agentId: "code", id })
      .append("user/message", { content: [{ type: "text", text }] }, { surface: "append" });
  say("kelvin", "the \u212Aelvin sign");
  say("long-s", "a long \u017Ftop");
  say("escaped", "plain words");
  say("e-notation", "plain words");
  sessions.create({ agentId: "code", id: "controls" }).append("tool/result", {
    toolCallId: "x",
    toolName: "bash",
    content: [{ type: "text", text: "\u001b[31mred\u001b[0m lone \ud800 x" }],
  });
  await sessions.close();
  // Letters spelled as escapes; a number in E notation and spaces in a tool call's arguments.
  appendRaw(
    root,
    "escaped",
    (seq) =>
      `{"seq":${seq},"time":1,"type":"user/message","data":{"content":[{"type":"text","text":"\\u0073ecret w\\u00f6rd"}]},"surface":"append"}`,
  );
  appendRaw(
    root,
    "e-notation",
    (seq) =>
      `{"seq":${seq},"time":2,"type":"assistant/message","data":{"content":[{"type":"tool-call","id":"c","name":"grep","arguments":{ "n" : 1E2 }}]},"surface":"append"}`,
  );
  const queries = [
    { query: "kelvin" },
    { query: "Kelvin" },
    { query: "stop" },
    { query: "secret" },
    { query: "wörd" },
    { query: "100" },
    { query: 'grep {"n":100}' },
    { query: "red" },
    { query: "lone" },
    { query: "alpha" },
    { query: "read_file" },
    { query: "secret|nothing", regex: true },
    { query: "s\\w+t", regex: true },
  ];
  for (const q of queries) {
    unitCache.clear();
    const hits = await collect(searchWorkspace({ root }, { ...q, limit: 100_000 }));
    const got = new Set(hits.filter((h) => h.location !== "draft").map(keyOf));
    const want = await bruteForce(root, q);
    assert.deepEqual([...got].sort(), [...want].sort(), JSON.stringify(q));
  }
  for (const q of ["kelvin", "stop", "secret", "wörd", "100", 'grep {"n":100}'])
    assert.ok((await bruteForce(root, { query: q })).size > 0, `the corpus holds ${q}`);
});

test("a cold search decodes only the units whose bytes may hold the query", async (t) => {
  const root = tempDir(t);
  await makeCorpus(root, { sessions: 12 });
  const sessions = new Sessions({ root, batchWindowMs: 1 });
  const s = sessions.create({ agentId: "code", id: "rare" });
  s.append("user/message", { content: [{ type: "text", text: "the word xylophonic, once" }] }, { surface: "append" });
  await sessions.close();
  unitCache.clear();
  const hits = await collect(searchWorkspace({ root }, { query: "xylophonic" }));
  assert.deepEqual(hits.map(keyOf), ["code/rare#1:text"]);
  // Every decoded unit is cached: of the 13 sessions' Active logs and closed segments, one was decoded,
  // and the Active of the two sessions with a draft (its last event says whether the draft still counts).
  assert.equal(unitCache.count, 3);
  unitCache.clear();
  await collect(searchWorkspace({ root }, { query: "alpha" }));
  assert.ok(unitCache.count > 12, "a common word decodes every unit that holds it");
});
