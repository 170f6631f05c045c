// Search index structures compared on one corpus, in one run (issue 23, "choose the structure
// by measurement"). Usage:
//   BENCH_SEARCH_DIR=/tmp/search2-10k BENCH_ALT_DIR=/tmp/search2-alt \
//     node --expose-gc --import tsx bench/search-structures.ts [from=3000] [sessions=2000]
// The corpus is the one bench/search.ts generates (run it first with the same BENCH_SEARCH_DIR):
// `sessions` of its sessions from `from` on, plus its 50,000-event session. Every candidate is
// given the same units (a closed segment, or a session's Active) as already decoded, folded text:
// the figures are the structure's own build, size and query, not the logs' decoding (which is the
// same for all, see bench/search.ts). A query's answer is the candidate units; every hit would
// then be confirmed against the log, as search does.
//
// The libraries are NOT dependencies of the project: they are imported from a scratch folder
// (BENCH_ALT_DIR) installed with `npm install minisearch@7.2.0 flexsearch@0.8.212
// @sqlite.org/sqlite-wasm@3.54.1-build1` (sql.js 1.16.0 was tried: its build has no FTS5).
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { fold } from "../core/search/fold";
import { Postings } from "../core/search/term-index/postings";
import { addWords, literalTerms } from "../core/search/term-index/words";
import { readUnit, segmentUnits } from "../core/search/units";
import { createStorageContext } from "../core/storage/context";
import { sessionPaths } from "../core/storage/layout";

const from = Number(process.argv[2] ?? 3000);
const count = Number(process.argv[3] ?? 2000);
const base = process.env.BENCH_SEARCH_DIR ?? "/tmp/search2-10k";
const alt = process.env.BENCH_ALT_DIR ?? "/tmp/search2-alt";
const root = join(base, "ws");
const now = () => performance.now();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
// "uasa" is inside a word (quasar): a word-based structure cannot find it, the product must.
const QUERIES = ["xylophonic", "zeppelinic", "quasar", "kalo", "uasa", "notawordanywhere"];

interface Candidate {
  name: string;
  /** What a query means to it (the product needs case-insensitive substrings). */
  semantics: string;
  build(units: readonly string[]): Promise<void> | void;
  bytes(): Promise<number> | number;
  query(q: string): number[];
}

async function loadUnits(): Promise<string[]> {
  const ctx = createStorageContext({ root });
  const units: string[] = [];
  const ids = [
    ...Array.from({ length: count }, (_, i) => `session-${String(from + i).padStart(5, "0")}`),
    "session-long",
  ];
  for (const sessionId of ids) {
    const paths = sessionPaths(root, "default", sessionId);
    const segments = segmentUnits(paths);
    const baseSeq = segments[0]?.kind === "segment" ? segments[0].name.last : 0;
    for (const unit of [{ kind: "active" } as const, ...segments]) {
      const entries = await readUnit(ctx, paths, unit, baseSeq, true);
      units.push(fold(entries.flatMap((e) => e.fields.map((f) => f.text)).join("\n")));
    }
  }
  return units;
}

/** Ours: per unit the set of its words; a query term must be a substring of a word of the unit. */
function termFiles(): Candidate {
  let postings = new Postings();
  let n = 0;
  return {
    name: "per-unit word postings (ours)",
    semantics: "substring of a word, any case",
    build(units) {
      postings = new Postings();
      n = units.length;
      units.forEach((text, unit) => {
        const words = new Set<string>();
        addWords(text, words);
        postings.add(unit, words);
      });
    },
    bytes() {
      const { words, blob, at } = postings.serialize(() => false);
      return blob.length + Buffer.byteLength(words.join("\n")) + at.length * 8;
    },
    query(q) {
      let candidate: Uint8Array | undefined;
      for (const term of literalTerms(fold(q))) {
        const hits = new Uint8Array(n);
        for (const word of postings.containing(term)) postings.forEachUnit(word, (u) => (hits[u] = 1));
        if (candidate) for (let u = 0; u < n; u++) candidate[u]! &= hits[u]!;
        else candidate = hits;
      }
      const out: number[] = [];
      if (candidate) candidate.forEach((v, u) => v && out.push(u));
      return out;
    },
  };
}

const varintBytes = (v: number) => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : 4);

/** Trigram files: per unit the set of its trigrams (3 UTF-16 units of folded text), delta-varint postings. */
function trigramFiles(): Candidate {
  let post = new Map<string, number[]>();
  const grams = (text: string, into: Set<string>) => {
    for (let i = 0; i + 3 <= text.length; i++) into.add(text.slice(i, i + 3));
  };
  return {
    name: "per-unit trigram postings",
    semantics: "substring of 3+ characters, any case",
    build(units) {
      post = new Map();
      units.forEach((text, unit) => {
        const set = new Set<string>();
        grams(text, set);
        for (const g of set) {
          const list = post.get(g);
          if (list) list.push(unit);
          else post.set(g, [unit]);
        }
      });
    },
    bytes() {
      let bytes = 0;
      for (const [g, list] of post) {
        bytes += Buffer.byteLength(g) + 1 + 8;
        let prev = 0;
        for (const u of list) {
          bytes += varintBytes(u - prev);
          prev = u;
        }
      }
      return bytes;
    },
    query(q) {
      const set = new Set<string>();
      grams(fold(q), set);
      let out: number[] | undefined;
      for (const g of set) {
        const list = post.get(g) ?? [];
        if (!out) out = [...list];
        else {
          const keep = new Set(list);
          out = out.filter((u) => keep.has(u));
        }
      }
      return out ?? [];
    },
  };
}

async function libraries(): Promise<Candidate[]> {
  const req = createRequire(join(alt, "package.json"));
  const load = async (name: string) => import(pathToFileURL(req.resolve(name)).href);
  const MiniSearch = (await load("minisearch")).default;
  const FlexSearch = await load("flexsearch");
  const Index = FlexSearch.Index ?? FlexSearch.default?.Index;
  const sqlite3 = await (await load("@sqlite.org/sqlite-wasm")).default({ print: () => {}, printErr: () => {} });
  const out: Candidate[] = [];

  let ms: { addAll(d: object[]): void; search(q: string, o: object): { id: number }[] } | undefined;
  out.push({
    name: "minisearch 7.2.0 (in memory, JSON to save)",
    semantics: "whole words (prefix on request), any case",
    build(units) {
      ms = new MiniSearch({ fields: ["t"], idField: "id" });
      ms!.addAll(units.map((t, id) => ({ id, t })));
    },
    bytes: () => Buffer.byteLength(JSON.stringify(ms)),
    query: (q) => ms!.search(q, { combineWith: "AND" }).map((r) => r.id),
  });

  let fx:
    | {
        add(id: number, t: string): void;
        search(q: string, o: object): number[];
        export(fn: (k: string, d: string) => void): unknown;
      }
    | undefined;
  out.push({
    name: "flexsearch 0.8.212 Index (tokenize: strict)",
    semantics: "whole words, any case",
    build(units) {
      fx = new Index({ tokenize: "strict" });
      units.forEach((t, id) => fx!.add(id, t));
    },
    async bytes() {
      let bytes = 0;
      await fx!.export((_key, data) => {
        bytes += data ? Buffer.byteLength(String(data)) : 0;
      });
      return bytes;
    },
    query: (q) => fx!.search(q, { limit: 1_000_000 }),
  });

  for (const tokenizer of ["trigram", "unicode61"] as const) {
    let db:
      | {
          exec(sql: string): void;
          selectValues(sql: string, bind?: unknown[]): number[];
          prepare(sql: string): { bind(v: unknown[]): { stepReset(): void }; finalize(): void };
          close(): void;
        }
      | undefined;
    out.push({
      // A trigram substring query is a phrase of trigrams: it needs positions (detail=full).
      name: `SQLite ${sqlite3.version.libVersion} FTS5 (${tokenizer}, contentless, detail=${tokenizer === "trigram" ? "full" : "none"}) via @sqlite.org/sqlite-wasm`,
      semantics:
        tokenizer === "trigram" ? "substring of 3+ characters, any case" : "whole words (prefix with *), any case",
      build(units) {
        db?.close();
        db = new sqlite3.oo1.DB(":memory:");
        db!.exec(
          `CREATE VIRTUAL TABLE u USING fts5(t, tokenize='${tokenizer}', content='', detail='${tokenizer === "trigram" ? "full" : "none"}')`,
        );
        db!.exec("BEGIN");
        const insert = db!.prepare("INSERT INTO u(rowid, t) VALUES (?, ?)");
        units.forEach((t, id) => insert.bind([id + 1, t]).stepReset());
        insert.finalize();
        db!.exec("COMMIT");
      },
      bytes: () => sqlite3.capi.sqlite3_js_db_export(db).length,
      query: (q) =>
        db!.selectValues("SELECT rowid - 1 FROM u WHERE u MATCH ?", [
          tokenizer === "trigram" ? `"${q.replace(/"/g, '""')}"` : q.replace(/[^\p{L}\p{N}_]+/gu, " "),
        ]),
    });
  }
  return out;
}

async function main(): Promise<void> {
  let t = now();
  const units = await loadUnits();
  const text = units.reduce((n, u) => n + Buffer.byteLength(u), 0);
  console.log(
    `${count} sessions (session-${from}…) + the 50,000-event session: ${units.length} units, ${mib(text)} of folded text, decoded in ${(now() - t).toFixed(0)} ms (not counted below)`,
  );
  const truth = new Map(QUERIES.map((q) => [q, units.filter((u) => u.includes(q)).length]));
  console.log(`units that hold each query (substring): ${QUERIES.map((q) => `${q} ${truth.get(q)}`).join(", ")}\n`);
  const rows: string[] = [];
  for (const c of [termFiles(), trigramFiles(), ...(await libraries())]) {
    global.gc?.();
    const heap0 = process.memoryUsage();
    t = now();
    await c.build(units);
    const buildMs = now() - t;
    global.gc?.();
    const heap1 = process.memoryUsage();
    const bytes = await c.bytes();
    const cells: string[] = [];
    for (const q of QUERIES) {
      const runs: number[] = [];
      let got: number[] = [];
      for (let i = 0; i < 5; i++) {
        t = now();
        got = c.query(q);
        runs.push(now() - t);
      }
      cells.push(`${median(runs).toFixed(2)} ms (${got.length})`);
    }
    const memory =
      heap1.heapUsed + heap1.arrayBuffers + heap1.external - heap0.heapUsed - heap0.arrayBuffers - heap0.external;
    rows.push(
      `| ${c.name} | ${c.semantics} | ${buildMs.toFixed(0)} ms | ${mib(bytes)} (${(bytes / text).toFixed(3)}) | ${mib(memory)} | ${cells.join(" | ")} |`,
    );
    console.log(rows.at(-1));
  }
  console.log(
    `\n| structure | a query matches | build | size (÷ text) | memory after build | ${QUERIES.join(" | ")} |`,
  );
  console.log(`|---|---|---|---|---|${QUERIES.map(() => "---|").join("")}`);
  console.log(rows.join("\n"));
  console.log(`\nwarm query: median of 5, the candidate units (in brackets: how many); node ${process.version}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
