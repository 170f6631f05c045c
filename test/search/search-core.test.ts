import assert from "node:assert/strict";
import { test } from "node:test";
import { searchWorkspace, SearchQueryError } from "../../core/runtime";
import { createWorkspaceRuntime } from "../../core/runtime/create";
import { RE2JS } from "re2js";
import { createMatcher } from "../../core/search/matcher";
import { fold } from "../../core/search/fold";
import { Sessions } from "../../core/storage";
import { tempDir } from "../support/temp";
import { bruteForce, collect, keyOf, makeCorpus } from "./corpus";

const QUERIES = [
  { query: "alpha" },
  { query: "Bravo" },
  { query: "bravo" },
  { query: "x-ray" },
  { query: "naïve" },
  { query: "データ" },
  { query: "bar", word: true },
  { query: "foo" },
  { query: "read_file" },
  { query: "Title" },
  { query: "thinking", reasoning: true },
  { query: "thinking" },
  { query: "summary" },
  { query: "gol+f|zulu", regex: true },
  { query: "^(alpha|echo) ", regex: true },
  { query: "\\bfoo\\w*", regex: true },
  { query: "[A-Z][a-z]+ia", regex: true, caseSensitive: true },
  { query: "e(ch|l)o", regex: true, word: true },
];

test("over a generated corpus the hits equal a brute-force decode-and-scan of the same logs", async (t) => {
  const root = tempDir(t);
  await makeCorpus(root, { sessions: 14 });
  for (const q of QUERIES) {
    const hits = await collect(searchWorkspace({ root }, { ...q, limit: 100_000 }));
    const got = new Set(hits.filter((h) => h.location !== "draft").map(keyOf));
    const want = await bruteForce(root, q);
    assert.deepEqual([...got].sort(), [...want].sort(), JSON.stringify(q));
    assert.equal(
      got.size,
      hits.filter((h) => h.location !== "draft").length,
      `one hit per field: ${JSON.stringify(q)}`,
    );
    if (q.query === "alpha" || q.query === "thinking") assert.ok(want.size > 0 || q.query === "thinking");
  }
});

test("hits say where the message is: closed segment (with its page), folded, in context, draft", async (t) => {
  const root = tempDir(t);
  await makeCorpus(root, { sessions: 14 });
  const hits = await collect(searchWorkspace({ root }, { query: "e", limit: 100_000 }));
  const locations = new Set(hits.map((h) => h.location));
  assert.deepEqual([...locations].sort(), ["closed", "context", "draft", "folded"]);
  const sessions = new Sessions({ root });
  t.after(() => sessions.close());
  for (const hit of hits.filter((h) => h.location === "closed").slice(0, 20)) {
    assert.equal(hit.inContext, false);
    const page = await sessions.messages(hit, { beforeSequence: hit.beforeSequence! });
    assert.ok(
      page.events.some((e) => e.seq === hit.seq),
      `segment page before ${hit.beforeSequence} holds seq ${hit.seq}`,
    );
  }
  for (const hit of hits.filter((h) => h.location === "context")) {
    assert.equal(hit.inContext, true);
    const page = await sessions.messages(hit);
    assert.ok(page.events.some((e) => e.seq === hit.seq));
  }
  // The folded result is the one shadowed by the "[pruned]" replace.
  const folded = hits.find((h) => h.location === "folded")!;
  assert.equal(folded.part, "tool-result");
  assert.equal(folded.inContext, false);
  // The snippet's ranges point at the matched text.
  for (const hit of hits.slice(0, 50))
    for (const [a, b] of hit.ranges) assert.equal(hit.snippet.slice(a, b).toLowerCase(), "e");
});

test("newest session first; limit, perSession, agent and area filters; abort ends the stream", async (t) => {
  const root = tempDir(t);
  await makeCorpus(root, { sessions: 14 });
  const sessions = new Sessions({ root });
  const order = [...(await sessions.list()), ...(await sessions.list({ archived: true }))]
    .sort((a, b) => b.updatedAt - a.updatedAt)
    .map((i) => i.sessionId);
  await sessions.close();
  const hits = await collect(searchWorkspace({ root }, { query: "a", limit: 100_000 }));
  const seen = [...new Set(hits.map((h) => h.sessionId))];
  assert.deepEqual(
    seen,
    order.filter((id) => seen.includes(id)),
  );
  assert.equal((await collect(searchWorkspace({ root }, { query: "a", limit: 7 }))).length, 7);
  const per = await collect(searchWorkspace({ root }, { query: "a", perSession: 2, limit: 1000 }));
  for (const id of new Set(per.map((h) => h.sessionId))) assert.ok(per.filter((h) => h.sessionId === id).length <= 2);
  assert.ok(
    (await collect(searchWorkspace({ root }, { query: "a", agentId: "ask", limit: 1000 }))).every(
      (h) => h.agentId === "ask",
    ),
  );
  const archived = await collect(searchWorkspace({ root }, { query: "a", area: "archived", limit: 1000 }));
  assert.ok(archived.length > 0 && archived.every((h) => h.archived));
  assert.ok(
    (await collect(searchWorkspace({ root }, { query: "a", area: "sessions", limit: 1000 }))).every((h) => !h.archived),
  );
  const one = await collect(
    searchWorkspace({ root }, { query: "a", session: { agentId: "code", sessionId: "s-4" }, limit: 1000 }),
  );
  assert.ok(one.length > 0 && one.every((h) => h.sessionId === "s-4"));

  const controller = new AbortController();
  const got = [];
  for await (const hit of searchWorkspace({ root }, { query: "a", limit: 1000, signal: controller.signal })) {
    got.push(hit);
    if (got.length === 3) controller.abort();
  }
  assert.equal(got.length, 3);
});

test("a bad query is refused at once with a clear error", () => {
  const root = "/nonexistent";
  assert.throws(() => searchWorkspace({ root }, { query: "" }), SearchQueryError);
  assert.throws(
    () => searchWorkspace({ root }, { query: "(a", regex: true }),
    /^SearchQueryError: invalid regular expression: missing closing \)$/,
  );
  assert.throws(
    () => searchWorkspace({ root }, { query: "(a)\\1", regex: true }),
    /invalid escape sequence at `\\1` \(back-references are not supported/,
  );
  assert.throws(() => searchWorkspace({ root }, { query: "a(?=b)", regex: true }), /look-around is not supported/);
  assert.throws(() => searchWorkspace({ root }, { query: "a(?<!b)", regex: true }), /look-around is not supported/);
  assert.throws(
    () => searchWorkspace({ root }, { query: "a**", regex: true }),
    /invalid nested repetition operator at `\*\*`/,
  );
  assert.throws(() => searchWorkspace({ root }, { query: "(a{1000}){1000}", regex: true }), /invalid repeat count/);
  assert.throws(() => searchWorkspace({ root }, { query: "x\\", regex: true }), /trailing backslash/);
  assert.throws(() => searchWorkspace({ root }, { query: "a", limit: -1 }), SearchQueryError);
  // The whole-word wrapper never turns a valid pattern into a bad one (an open \\Q quotes to the end).
  assert.deepEqual(createMatcher({ query: "\\Qa.b", regex: true, word: true }).find("a.b xa.b a.b", 10), [
    [0, 3],
    [9, 12],
  ]);
});

test("case-insensitive search folds as the regex engine does: ſ, ς, µ, the Kelvin sign, ΐ (literal, regex and the index share the fold)", () => {
  const pairs: [string, string][] = [
    ["ſ", "s"],
    ["ς", "σ"],
    ["µ", "μ"],
    ["\u212a", "k"],
    ["\u1fd3", "\u0390"],
    ["\ufb05", "\ufb06"],
    ["ẞ", "ß"],
  ];
  for (const [odd, plain] of pairs) {
    assert.equal(fold(odd), fold(plain), `${odd} folds as ${plain}`);
    assert.ok(RE2JS.compile(plain, RE2JS.CASE_INSENSITIVE).matches(odd), `the engine merges ${odd} and ${plain}`);
    const text = `x ${odd}${odd} y`;
    assert.deepEqual(createMatcher({ query: plain + plain }).find(text, 5), [[2, 4]], `literal ${plain}`);
    assert.deepEqual(
      createMatcher({ query: `${plain}${plain} y$`, regex: true }).find(text, 5).length,
      1,
      `regex ${plain}`,
    );
  }
  // Length is kept whatever the text (offsets map one to one).
  for (const s of ["İstanbul ß ŉ ǰ", "ΐ ΰ ﬅ", "plain"]) assert.equal(fold(s).length, s.length);
});

test("a regex's required literals come from re2js' prefilter (AND level only; folded unless case-sensitive)", () => {
  const required = (query: string, caseSensitive?: boolean) =>
    createMatcher({ query, regex: true, ...(caseSensitive === undefined ? {} : { caseSensitive }) }).required;
  assert.deepEqual(required("lima \\w+ mike"), ["lima ", " mike"]);
  assert.deepEqual(required("Quasar \\d+"), ["Quasar "], "smart case: upper case kept");
  assert.deepEqual(required("QUASAR \\d+", false), ["quasar "], "case-insensitive: folded");
  assert.deepEqual(required("abc(def)?ghi"), ["abc", "ghi"]);
  assert.deepEqual(required("gol+f|zulu"), [], "an OR narrows nothing: the scan reads everything");
  assert.deepEqual(required("\\w+"), []);
});

/** UTF-8 bytes behind a Proxy that counts every read the engine makes of them. */
function countedBytes(text: string): { bytes: number[]; reads: () => number } {
  let reads = 0;
  const bytes = new Proxy([...Buffer.from(text)], {
    get(target, key, receiver) {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { bytes, reads: () => reads };
}

test("catastrophic regexes read the text a bounded number of times, linear in it: (a+)+$, (a|a)*b, (.*a){12}x", () => {
  for (const pattern of ["(a+)+$", "(a|a)*b", "(.*a){12}x", "(\\w+\\s?)+!z"]) {
    // The engine search runs, with the flags it runs with, counted.
    const re = RE2JS.compile(pattern, RE2JS.MULTILINE);
    const reads: number[] = [];
    for (const n of [2_000, 8_000]) {
      const text = countedBytes("a".repeat(n) + "!");
      re.matcher(text.bytes).find();
      reads.push(text.reads());
      assert.ok(text.reads() <= 8 * (n + 2), `${pattern} at ${n}: ${text.reads()} reads`);
    }
    // Linear: four times the text, at most ~4x the reads (never the 2^n of a backtracker).
    assert.ok(reads[1]! <= 4.5 * reads[0]!, `${pattern}: ${reads.join(" → ")}`);
    // And search's matcher over a long text returns (a backtracker would not, in any time).
    const m = createMatcher({ query: pattern, regex: true });
    const found = m.find("a".repeat(50_000) + "!", 10);
    assert.equal(found.length, 0, pattern);
  }
});

test("regex semantics match JavaScript's on ordinary patterns (leftmost-first, greedy and lazy)", () => {
  const cases: [string, string][] = [
    ["a+?b", "xaaab aab"],
    ["(foo|foobar)", "foobar"],
    ["\\d{2,3}", "1 12 1234 56789"],
    ["colou?r", "color colour colouur"],
    ["[^a-c]+", "abcdefabc"],
    ["^\\w+$", "one\ntwo words\nthree"],
    ["x*", "axxb"],
    ["\\bis\\b", "this is island"],
    ["[\\d.]+", "v1.2.3-rc"],
  ];
  for (const [pattern, text] of cases) {
    const m = createMatcher({ query: pattern, regex: true, caseSensitive: true });
    const want = [...text.matchAll(new RegExp(pattern, "gm"))].map((r) => [r.index!, r.index! + r[0].length]);
    assert.deepEqual(m.find(text, 100), want, pattern);
  }
});

test("the runtime's search sees a live session's unflushed appends", async (t) => {
  const root = tempDir(t);
  const runtime = createWorkspaceRuntime({
    root,
    providers: () => [],
    model: () => undefined,
    approval: () => ({ reads: "auto", edits: "ask", commands: "ask" }),
    tools: () => [],
    storage: { batchWindowMs: 60_000 },
  });
  t.after(() => runtime.close());
  const session = runtime.create("code", "live-1");
  session.append("user/message", { content: [{ type: "text", text: "the quokka question" }] }, { surface: "append" });
  const hits = await collect(runtime.search({ query: "quokka" }));
  assert.equal(hits.length, 1);
  assert.equal(hits[0]!.sessionId, "live-1");
  assert.equal(hits[0]!.location, "context");
  assert.throws(() => runtime.search({ query: "[", regex: true }), SearchQueryError);
});
