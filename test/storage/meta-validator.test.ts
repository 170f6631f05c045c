import assert from "node:assert/strict";
import { test } from "node:test";
import { parseMeta } from "../../core/storage/meta";
import { SessionMeta } from "../../core/storage/meta-schema";
import { prng } from "../support/storage/fuzz";

// Lists check meta.json by hand (no zod on the list path); the schema stays the contract.
// Both must accept the same documents and return the same value.
const VALID = {
  version: 1,
  sessionId: "session-1",
  agentId: "code",
  title: "Explain the build",
  titleSource: "llm",
  model: "m1",
  createdAt: 1_700_000_000_000,
  updatedAt: 1_700_000_000_500,
  messageCount: 4,
  historyBytes: 900,
  timeZone: "Europe/Berlin",
  forkedFrom: { sessionId: "session-0", agentId: "code", atSeq: 3 },
  segmentBytes: 300,
  lastSeq: 4,
};
const FIELDS = [...Object.keys(VALID), "extra"];
const FORK_FIELDS = ["sessionId", "agentId", "atSeq", "validPrefix", "extra"];
const DROP = Symbol("drop");
const VALUES: unknown[] = [
  DROP,
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  -0.5,
  2 ** 53,
  2 ** 53 - 1,
  1e308,
  "",
  "x",
  "fallback",
  "llm",
  "user",
  "other",
  "t".repeat(500),
  "t".repeat(501),
  "i".repeat(4096),
  "i".repeat(4097),
  "ü".repeat(500),
  "😀".repeat(250),
  "😀".repeat(251),
  "😀".repeat(501),
  "😀".repeat(2049),
  "😀".repeat(4097),
  "\ud83d".repeat(501),
  [],
  [1],
  {},
  { sessionId: "a", agentId: "b", atSeq: 0 },
  { sessionId: "a", agentId: "b", atSeq: 0, validPrefix: true, more: 1 },
];

function mutate(rand: ReturnType<typeof prng>): unknown {
  if (rand.int(40) === 0) return rand.pick([null, [], "meta", 1, [VALID]]);
  const doc: Record<string, unknown> = structuredClone(VALID);
  if (rand.int(3) === 0) delete doc.forkedFrom;
  for (let n = 1 + rand.int(3); n > 0; n--) {
    const onFork = rand.int(3) === 0 && typeof doc.forkedFrom === "object" && doc.forkedFrom !== null;
    const target = onFork ? (doc.forkedFrom as Record<string, unknown>) : doc;
    const field = rand.pick(onFork ? FORK_FIELDS : FIELDS);
    const value = rand.pick(VALUES);
    if (value === DROP) delete target[field];
    else target[field] = structuredClone(value);
  }
  return doc;
}

test("the hand validator of meta.json accepts exactly what the SessionMeta schema accepts, with the same value", () => {
  const rand = prng(7);
  let accepted = 0;
  for (let i = 0; i < 5_000; i++) {
    const doc = mutate(rand);
    const text = JSON.stringify(doc);
    const schema = SessionMeta.safeParse(JSON.parse(text));
    const hand = parseMeta(Buffer.from(text));
    assert.deepEqual(hand, schema.success ? schema.data : undefined, `case ${i}: ${text.slice(0, 300)}`);
    if (hand) accepted++;
  }
  // Both sides of the rule are exercised, not only rejections.
  assert.ok(accepted > 500 && accepted < 4_500, `accepted ${accepted} of 5000`);
});

test("meta.json that is not JSON, or not an object, is no meta", () => {
  for (const text of ["", "{not json", "[]", "null", '"x"', "1", '{"version":2}'])
    assert.equal(parseMeta(Buffer.from(text)), undefined, text);
  assert.equal(parseMeta(undefined), undefined);
});
