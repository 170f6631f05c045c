import type { SearchHit, SearchOptions } from "../../core/protocol/search";
import type { SessionEvent } from "../../core/protocol";
import type { Session } from "../../core/session";
import { Sessions } from "../../core/storage";
import { eventFields } from "../../core/search/extract";

/** Words of the generated conversations: common ones and a few rare ones, mixed case. */
export const WORDS = [
  "alpha",
  "Bravo",
  "charlie",
  "delta",
  "echo",
  "foxtrot",
  "golf",
  "hotel",
  "India",
  "juliet",
  "kilo",
  "lima",
  "mike",
  "november",
  "oscar",
  "papa",
  "quebec",
  "romeo",
  "sierra",
  "tango",
  "uniform",
  "victor",
  "whiskey",
  "x-ray",
  "yankee",
  "zulu",
  "naïve",
  "straße",
  "データ",
  "foo_bar",
  "foobar",
  "bar",
];

export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

export function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)]!);
  return out.join(rand() < 0.2 ? ", " : " ");
}

/** One turn: user, assistant (text, reasoning, a tool call), the tool's result, the answer. */
export function turn(session: Session, rand: () => number, n: number): void {
  session.append("turn/start", { turn: n });
  session.append("user/message", { content: [{ type: "text", text: sentence(rand, 8) }] }, { surface: "append" });
  const id = `call-${session.lastSeq}`;
  session.append(
    "assistant/message",
    {
      content: [
        { type: "reasoning", text: `thinking ${sentence(rand, 5)}` },
        { type: "text", text: sentence(rand, 12) },
        { type: "tool-call", id, name: "read_file", arguments: { path: `src/${WORDS[n % WORDS.length]}.ts` } },
      ],
    },
    { surface: "append" },
  );
  session.append("tool/call", {
    toolCallId: id,
    name: "read_file",
    arguments: { path: `src/${WORDS[n % WORDS.length]}.ts` },
  });
  session.append(
    "tool/result",
    { toolCallId: id, toolName: "read_file", content: [{ type: "text", text: sentence(rand, 30) }] },
    { surface: "append" },
  );
  session.append("assistant/message", { content: [{ type: "text", text: sentence(rand, 10) }] }, { surface: "append" });
  session.append("turn/end", { reason: "completed" });
}

/**
 * A folder of sessions of two agents, live and archived, some with closed segments, a
 * folded tool result, titles, a leftover draft; written through the store.
 */
export async function makeCorpus(root: string, options: { sessions?: number; seed?: number } = {}): Promise<void> {
  const rand = rng(options.seed ?? 1);
  const count = options.sessions ?? 12;
  let clock = 1_700_000_000_000;
  const sessions = new Sessions({ root, batchWindowMs: 1, clock: () => (clock += 1000) });
  for (let i = 0; i < count; i++) {
    const agentId = i % 3 === 2 ? "ask" : "code";
    const s = sessions.create({ agentId, id: `s-${i}` });
    const turns = 1 + (i % 4);
    for (let k = 0; k < turns; k++) {
      turn(s, rand, k + 1);
      if (i % 2 === 0 && k === 1) {
        await sessions.flush(s);
        await sessions.closePrefix(s, s.lastSeq, `summary ${i}`);
      }
    }
    if (i % 4 === 1) {
      const result = [...s.events()].reverse().find((e) => e.type === "tool/result")!;
      s.append(
        "tool/result",
        {
          toolCallId: (result.data as { toolCallId: string }).toolCallId,
          toolName: "read_file",
          content: [{ type: "text", text: "[pruned]" }],
        },
        { surface: { op: "replace", start: result.seq, end: result.seq }, sources: [result.seq] },
      );
    }
    if (i % 5 === 0)
      s.append("session/title", { title: `Title ${sentence(rand, 2)}`, messageSeqs: [], source: { kind: "user" } });
    await sessions.flush(s);
    if (i % 6 === 3)
      await sessions.writeDraft(s, {
        draftId: `d-${i}`,
        blocks: [{ type: "text", text: `streaming ${sentence(rand, 6)}` }],
      });
  }
  await sessions.close();
  const again = new Sessions({ root });
  for (let i = 0; i < count; i += 7)
    await again.archive({ agentId: i % 3 === 2 ? "ask" : "code", sessionId: `s-${i}` });
  await again.close();
}

/** Every event of a session through the store's own paging, oldest first. */
async function wholeLog(sessions: Sessions, ref: { agentId: string; sessionId: string }): Promise<SessionEvent[]> {
  const pages: SessionEvent[][] = [];
  let page = await sessions.messages(ref);
  pages.unshift(page.events);
  while (page.hasOlder) {
    page = await sessions.messages(ref, { beforeSequence: page.firstSeq });
    pages.unshift(page.events);
  }
  return pages.flat();
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The reference: decode every log through the store and test each field with the
 * engine's own RegExp. Returns `agentId/sessionId#seq:part` keys (drafts aside).
 */
export async function bruteForce(
  root: string,
  options: Pick<SearchOptions, "query" | "regex" | "word" | "caseSensitive" | "reasoning" | "area">,
): Promise<Set<string>> {
  const sessions = new Sessions({ root });
  const keys = new Set<string>();
  const sensitive =
    options.caseSensitive ?? /\p{Lu}/u.test(options.regex ? options.query.replace(/\\./g, "") : options.query);
  const body = options.regex ? options.query : escape(options.query);
  const re = new RegExp(
    options.word ? `(?<![\\p{L}\\p{N}_])(?:${body})(?![\\p{L}\\p{N}_])` : body,
    `u${sensitive ? "" : "i"}`,
  );
  try {
    for (const archived of [false, true]) {
      if ((options.area ?? "all") === (archived ? "sessions" : "archived")) continue;
      for (const item of await sessions.list({ archived })) {
        for (const event of await wholeLog(sessions, item)) {
          for (const field of eventFields(event, options.reasoning === true))
            if (re.test(field.text)) keys.add(`${item.agentId}/${item.sessionId}#${event.seq}:${field.part}`);
        }
      }
    }
  } finally {
    await sessions.close();
  }
  return keys;
}

export async function collect(hits: AsyncIterable<SearchHit>): Promise<SearchHit[]> {
  const out: SearchHit[] = [];
  for await (const hit of hits) out.push(hit);
  return out;
}

export const keyOf = (hit: SearchHit) => `${hit.agentId}/${hit.sessionId}#${hit.seq}:${hit.part}`;
