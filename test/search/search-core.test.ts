import assert from "node:assert/strict";
import { test } from "node:test";
import { searchWorkspace, SearchQueryError, WorkspaceRuntime } from "../../core/runtime";
import { createMatcher } from "../../core/search";
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
    assert.equal(got.size, hits.filter((h) => h.location !== "draft").length, `one hit per field: ${JSON.stringify(q)}`);
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
    assert.ok(page.events.some((e) => e.seq === hit.seq), `segment page before ${hit.beforeSequence} holds seq ${hit.seq}`);
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
  for (const hit of hits.slice(0, 50)) for (const [a, b] of hit.ranges) assert.equal(hit.snippet.slice(a, b).toLowerCase(), "e");
});

test("newest session first; limit, perSession, agent and area filters; abort ends the stream", async (t) => {
  const root = tempDir(t);
  await makeCorpus(root, { sessions: 14 });
  const sessions = new Sessions({ root });
  const order = [...(await sessions.list()), ...(await sessions.list({ archived: true }))].sort((a, b) => b.updatedAt - a.updatedAt).map((i) => i.sessionId);
  await sessions.close();
  const hits = await collect(searchWorkspace({ root }, { query: "a", limit: 100_000 }));
  const seen = [...new Set(hits.map((h) => h.sessionId))];
  assert.deepEqual(seen, order.filter((id) => seen.includes(id)));
  assert.equal((await collect(searchWorkspace({ root }, { query: "a", limit: 7 }))).length, 7);
  const per = await collect(searchWorkspace({ root }, { query: "a", perSession: 2, limit: 1000 }));
  for (const id of new Set(per.map((h) => h.sessionId))) assert.ok(per.filter((h) => h.sessionId === id).length <= 2);
  assert.ok((await collect(searchWorkspace({ root }, { query: "a", agentId: "ask", limit: 1000 }))).every((h) => h.agentId === "ask"));
  const archived = await collect(searchWorkspace({ root }, { query: "a", area: "archived", limit: 1000 }));
  assert.ok(archived.length > 0 && archived.every((h) => h.archived));
  assert.ok((await collect(searchWorkspace({ root }, { query: "a", area: "sessions", limit: 1000 }))).every((h) => !h.archived));
  const one = await collect(searchWorkspace({ root }, { query: "a", session: { agentId: "code", sessionId: "s-4" }, limit: 1000 }));
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
  assert.throws(() => searchWorkspace({ root }, { query: "(a", regex: true }), /invalid regular expression at \d+: missing \)/);
  assert.throws(() => searchWorkspace({ root }, { query: "(a)\\1", regex: true }), /back-references are not supported/);
  assert.throws(() => searchWorkspace({ root }, { query: "a(?=b)", regex: true }), /look-around is not supported/);
  assert.throws(() => searchWorkspace({ root }, { query: "a**", regex: true }), /quantifier follows a quantifier/);
  assert.throws(() => searchWorkspace({ root }, { query: "(a{1000}){1000}", regex: true }), /too large/);
  assert.throws(() => searchWorkspace({ root }, { query: "a", limit: -1 }), SearchQueryError);
});

test("catastrophic regexes run in steps linear in the text: (a+)+$, (a|a)*b, (.*a){12}", () => {
  for (const pattern of ["(a+)+$", "(a|a)*b", "(.*a){12}x", "(\\w+\\s?)+!"]) {
    const m = createMatcher({ query: pattern, regex: true });
    const program = 200; // a bound on the compiled size of these patterns
    const steps: number[] = [];
    for (const n of [1000, 4000]) {
      const before = m.steps;
      const text = "a".repeat(n) + "!";
      m.find(text, 10);
      steps.push(m.steps - before);
      assert.ok(m.steps - before <= 4 * (n + 2) * program, `${pattern} at ${n}: ${m.steps - before} steps`);
    }
    // Linear: four times the text, at most ~4x the steps (never the 2^n of a backtracker).
    assert.ok(steps[1]! <= 4.5 * steps[0]!, `${pattern}: ${steps.join(" → ")}`);
  }
});

test("a regex query stops with a clear error once it has run its step budget", () => {
  const m = createMatcher({ query: "(\\w|\\s)*z", regex: true }, 50_000);
  const text = `${"ab ".repeat(2_000)}z`;
  assert.throws(() => {
    for (let i = 0; i < 100; i++) m.find(text, 10);
  }, /needs too much work over this history/);
  assert.ok(m.steps < 50_000 + 30 * text.length, `stopped near the budget: ${m.steps}`);
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
  const runtime = new WorkspaceRuntime({ root, providers: () => [], model: () => undefined, approval: () => ({ reads: "auto", edits: "ask", commands: "ask" }), tools: () => [], storage: { batchWindowMs: 60_000 } });
  t.after(() => runtime.close());
  const session = runtime.create("code", "live-1");
  session.append("user/message", { content: [{ type: "text", text: "the quokka question" }] }, { surface: "append" });
  const hits = await collect(runtime.search({ query: "quokka" }));
  assert.equal(hits.length, 1);
  assert.equal(hits[0]!.sessionId, "live-1");
  assert.equal(hits[0]!.location, "context");
  assert.throws(() => runtime.search({ query: "[", regex: true }), SearchQueryError);
});
