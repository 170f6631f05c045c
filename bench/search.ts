// Session search benchmarks (issue 23). Usage:
//   node --expose-gc --import tsx bench/search.ts [scale=0.1] [sessions=10000] [longEvents=50000]
// Corpus through the store (test/storage/generate.ts) with a Zipf vocabulary of 20,000
// pseudo-words; every figure is measured in this one run against a brute-force
// decode-and-scan of the same logs, with `rg` over plain exports as the floor.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { Worker } from "node:worker_threads";
import * as zstd from "@mongodb-js/zstd";
import { join } from "node:path";
import { openSearchIndex, searchWorkspace } from "../core/runtime/search";
import type { SearchOptions } from "../core/protocol/search";
import { eventFields } from "../core/search/extract";
import { fold } from "../core/search/fold";
import { indexPrefilter, searchSessions } from "../core/search";
import { createStorageContext } from "../core/storage/context";
import { Sessions, sessionPaths } from "../core/storage";
import { listStored } from "../core/storage/list/list";
import { parseEventLog } from "../core/storage/records";
import { listSegments, readSegment } from "../core/storage/segments-dir";
import { decodeSegment } from "../core/storage/segment-codec";
import { Postings } from "../core/search/term-index/postings";
import { addWords } from "../core/search/term-index/words";
import { unitCache } from "../core/search/unit-cache";
import { rawTests } from "../core/search/raw-test";
import { readFileQuiet } from "../core/search/read-sync";
import type { SessionEvent } from "../core/protocol";
import { generateSession } from "../test/support/storage/generate";

const scale = Number(process.argv[2] ?? 0.1);
const count = Number(process.argv[3] ?? 10_000);
const longEvents = Number(process.argv[4] ?? 50_000);
const now = () => performance.now();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

// ---------------------------------------------------------------- corpus
let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const SYL = ["ka", "lo", "mi", "ren", "sa", "to", "vu", "zen", "qi", "dor", "pel", "an", "ix", "ul", "mar", "tes"];
const VOCAB = Array.from({ length: 20_000 }, (_, i) => {
  let w = "";
  let n = i + 1;
  while (n > 0) {
    w += SYL[n % SYL.length];
    n = Math.floor(n / SYL.length);
  }
  return w;
});
let marker: string | undefined;
function text(bytes: number): string {
  let out = marker ? `${marker} ` : "";
  marker = undefined;
  while (out.length < bytes) out += `${VOCAB[Math.floor(rand() ** 3 * VOCAB.length)]}${rand() < 0.1 ? ". " : " "}`;
  return out;
}

async function generate(root: string): Promise<void> {
  const store = new Sessions({ root, batchWindowMs: 60_000 });
  for (let i = 0; i < count; i++) {
    // rare: one session; medium: 1 % of sessions; "quasar" in each hundredth.
    marker = i === Math.min(4321, Math.floor(count / 2)) ? "xylophonic" : i % 100 === 7 ? "quasar" : undefined;
    const s = store.create({ id: `session-${String(i).padStart(5, "0")}` });
    await generateSession(store, s, 20, { scale, text });
    await store.store.dispose(s);
    await store.persistence.release(s);
  }
  marker = "zeppelinic"; // only in the long session's first (closed) segment
  const long = store.create({ id: "session-long" });
  await generateSession(store, long, longEvents, { scale, text });
  await store.close();
}

// ---------------------------------------------------------------- reference scans
async function sessionEvents(root: string, agentId: string, sessionId: string): Promise<SessionEvent[]> {
  const ctx = createStorageContext({ root });
  const paths = sessionPaths(root, agentId, sessionId);
  const events: SessionEvent[] = [];
  for (const name of await listSegments(ctx, paths)) events.push(...(await readSegment(ctx, paths, name)).events);
  const base = events.at(-1)?.seq ?? 0;
  for (const e of parseEventLog(await ctx.fs.readFile(paths.active)).events) if (e.seq > base) events.push(e);
  return events;
}

/** Brute force: decode every log, every field folded and tested with indexOf. */
async function bruteForce(root: string, query: string): Promise<{ ms: number; hits: number }> {
  const t0 = now();
  const needle = fold(query);
  let hits = 0;
  const ctx = createStorageContext({ root });
  for (const item of await listStored(ctx, {})) {
    for (const e of await sessionEvents(root, item.agentId, item.sessionId))
      for (const f of eventFields(e, false)) if (fold(f.text).includes(needle)) hits++;
  }
  return { ms: now() - t0, hits };
}

async function exportPlain(root: string, dir: string): Promise<number> {
  mkdirSync(dir, { recursive: true });
  let bytes = 0;
  for (const item of await listStored(createStorageContext({ root }), {})) {
    const parts: string[] = [];
    for (const e of await sessionEvents(root, item.agentId, item.sessionId))
      for (const f of eventFields(e, true)) parts.push(f.text);
    const body = parts.join("\n");
    bytes += Buffer.byteLength(body);
    writeFileSync(join(dir, `${item.sessionId}.txt`), body);
  }
  return bytes;
}

function rg(dir: string, word: string): number {
  const t0 = now();
  try {
    execFileSync("rg", ["-i", "-l", "--no-messages", word, dir], {
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 1 << 26,
    });
  } catch {
    /* exit 1: no match */
  }
  return now() - t0;
}

/**
 * Where the index build's time goes, phase by phase over every unit (as `refresh()` does
 * it: a closed segment or an Active log at a time): read the bytes, decode (zstd + JSON
 * per record), extract the searchable fields, fold and split them into words, add the
 * unit's words to the postings; then serialize the postings once.
 */
async function buildBreakdown(root: string): Promise<Record<string, number>> {
  const ctx = createStorageContext({ root });
  const ms = { read: 0, decode: 0, extract: 0, fold: 0, words: 0, postings: 0, serialize: 0 };
  const postings = new Postings();
  let unit = 0;
  let t = now();
  const lap = (key: keyof typeof ms) => {
    const at = now();
    ms[key] += at - t;
    t = at;
  };
  const index = (events: readonly SessionEvent[]) => {
    const fields = events.flatMap((e) => eventFields(e, true));
    lap("extract");
    const folded = fields.map((f) => fold(f.text));
    lap("fold");
    const words = new Set<string>();
    for (const text of folded) addWords(text, words);
    lap("words");
    postings.add(unit++, words);
    lap("postings");
  };
  for (const item of await listStored(ctx, {})) {
    const paths = sessionPaths(root, item.agentId, item.sessionId);
    t = now();
    for (const name of await listSegments(ctx, paths)) {
      const data = await ctx.fs.readFile(join(paths.segments, name.file));
      lap("read");
      const { events } = await decodeSegment(data, name);
      lap("decode");
      index(events);
    }
    // As the index reads them: Active on the calling thread, segments through the store's reader.
    const active = readFileQuiet(paths.active) ?? Buffer.alloc(0);
    lap("read");
    const { events } = parseEventLog(active);
    lap("decode");
    index(events);
  }
  t = now();
  postings.serialize(() => false);
  lap("serialize");
  return ms;
}

/** Every session folder of the corpus (one agent, live), by readdir alone. */
function sessionFolders(root: string): string[] {
  const base = join(root, ".downcity", "agents", "default", "sessions");
  return readdirSync(base).map((name) => `${base}/${name}`);
}

/** Reads every file on this thread (and decompresses the segments): the least a build does. */
async function readFloor(files: readonly string[], unzip: boolean): Promise<number> {
  const t0 = now();
  for (const file of files) {
    const data = readFileSync(file);
    if (unzip && file.endsWith(".zst")) await zstd.decompress(data);
  }
  return now() - t0;
}

/** `readFloor` split over `n` worker threads, wall time (each worker reads and decompresses its share). */
async function readFloorInWorkers(files: readonly string[], n: number): Promise<number> {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const { readFileSync } = require("node:fs");
    const zstd = require(workerData.zstd);
    parentPort.once("message", async () => {
      for (const file of workerData.files) {
        const data = readFileSync(file);
        if (file.endsWith(".zst")) await zstd.decompress(data);
      }
      parentPort.postMessage("done");
    });`;
  const zstd = require.resolve("@mongodb-js/zstd");
  const workers = Array.from(
    { length: n },
    (_, i) => new Worker(code, { eval: true, workerData: { zstd, files: files.filter((_, k) => k % n === i) } }),
  );
  await Promise.all(workers.map((w) => new Promise((r) => w.once("online", r))));
  const t0 = now();
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((r) => {
          w.once("message", r);
          w.postMessage("go");
        }),
    ),
  );
  const ms = now() - t0;
  await Promise.all(workers.map((w) => w.terminate()));
  return ms;
}

/**
 * The read floor plus the cheapest tokeniser there is, over the raw bytes: one pass per
 * file (segments decompressed) that hashes each run of ASCII letters (case folded) into a
 * set of 32-bit word hashes, JSON keys and ids included, no string made. A real one must
 * also decode escapes and non-ASCII text, and keep the words per unit.
 */
async function rawTokenise(files: readonly string[]): Promise<{ ms: number; words: number }> {
  const t0 = now();
  const words = new Set<number>();
  for (const file of files) {
    const stored = readFileSync(file);
    const data: Buffer = file.endsWith(".zst") ? await zstd.decompress(stored) : stored;
    let h = 0x811c9dc5;
    let len = 0;
    for (let i = 0; i < data.length; i++) {
      const c = data[i]! | 0x20;
      if (c >= 0x61 && c <= 0x7a) {
        h = Math.imul(h ^ c, 16777619);
        len++;
      } else if (len > 0) {
        if (len > 1) words.add(h >>> 0);
        h = 0x811c9dc5;
        len = 0;
      }
    }
  }
  return { ms: now() - t0, words: words.size };
}

// ---------------------------------------------------------------- searches
async function timed(hits: AsyncIterable<unknown>): Promise<{ first: number; all: number; n: number }> {
  const t0 = now();
  let first = NaN;
  let n = 0;
  for await (const _ of hits) {
    if (n++ === 0) first = now() - t0;
  }
  return { first, all: now() - t0, n };
}

const QUERIES: { name: string; options: SearchOptions }[] = [
  { name: "rare word (1 session)", options: { query: "xylophonic" } },
  { name: "word only in a closed segment of the long session", options: { query: "zeppelinic" } },
  { name: "1 % of sessions, limit 200", options: { query: "quasar" } },
  { name: "common word, limit 200", options: { query: "kalo" } },
  { name: "regex with a literal, limit 200", options: { query: "quasar \\w+", regex: true } },
  { name: "no match", options: { query: "notawordanywhere" } },
];

async function main(): Promise<void> {
  const base = process.env.BENCH_SEARCH_DIR ?? mkdtempSync(join(tmpdir(), "downcity-search-bench-"));
  const root = join(base, "ws");
  const ready = join(base, `ready-${scale}-${count}-${longEvents}`);
  const t0 = now();
  if (!existsSync(ready)) {
    rmSync(root, { recursive: true, force: true });
    await generate(root);
    writeFileSync(ready, "");
    console.log(
      `generated ${count} sessions + one of ${longEvents} events (scale ${scale}) in ${((now() - t0) / 1000).toFixed(1)} s`,
    );
  }
  const plainDir = join(base, "plain");
  rmSync(plainDir, { recursive: true, force: true });
  const plainBytes = await exportPlain(root, plainDir);
  const logBytes = Number(execFileSync("du", ["-sb", join(root, ".downcity")], { encoding: "utf8" }).split("\t")[0]);
  console.log(`plain text ${mib(plainBytes)}, logs on disk ${mib(logBytes)}`);

  const rows: string[] = [];
  const row = (...cells: (string | number)[]) => rows.push(`| ${cells.join(" | ")} |`);

  // Brute force and rg floor (median of 3).
  const brute = [];
  for (let i = 0; i < 3; i++) brute.push(await bruteForce(root, "xylophonic"));
  const bruteMs = median(brute.map((b) => b.ms));
  const rgMs = median([0, 1, 2].map(() => rg(plainDir, "xylophonic")));
  row(
    "brute-force decode-and-scan (every log, one word)",
    `${bruteMs.toFixed(0)} ms`,
    "1.00",
    `${brute[0]!.hits} hits`,
  );
  row("rg -i -l over plain exports (floor)", `${rgMs.toFixed(0)} ms`, (rgMs / bruteMs).toFixed(3), "");

  // What a cold first result waits for at least, to go newest first: one look at every session folder.
  // Listing reads each meta.json (its updatedAt); no order can cost less than a readdir and one lstat each.
  const floors = { readdir: [] as number[], lstat: [] as number[], list: [] as number[] };
  for (let i = 0; i < 3; i++) {
    let t1 = now();
    const folders = sessionFolders(root);
    floors.readdir.push(now() - t1);
    t1 = now();
    for (const dir of sessionFolders(root)) lstatSync(`${dir}/messages/active.jsonl`, { throwIfNoEntry: false });
    floors.lstat.push(now() - t1);
    t1 = now();
    await listStored(createStorageContext({ root }), {});
    floors.list.push(now() - t1);
    void folders;
  }
  for (const [name, xs] of [
    ["newest-first order's floor: readdir of every session folder", floors.readdir],
    ["newest-first order's floor: readdir + one lstat per session (Active's mtime)", floors.lstat],
    ["list every session (meta.json of each: its updatedAt), as the scan orders them", floors.list],
  ] as const)
    row(name, `${median(xs).toFixed(0)} ms`, (median(xs) / bruteMs).toFixed(3), `${count + 1} sessions`);

  // What any index build must do at least: read every log and decompress its segments (no JSON, no words).
  const files: string[] = [];
  for (const dir of sessionFolders(root)) {
    files.push(`${dir}/messages/active.jsonl`);
    const seg = `${dir}/messages/segments`;
    if (existsSync(seg)) for (const f of readdirSync(seg)) files.push(`${seg}/${f}`);
  }
  const readOnly = median([
    await readFloor(files, false),
    await readFloor(files, false),
    await readFloor(files, false),
  ]);
  row(
    "build's floor: read every log (readFileSync)",
    `${readOnly.toFixed(0)} ms`,
    (readOnly / bruteMs).toFixed(3),
    `${files.length} files`,
  );
  const readUnzip = median([await readFloor(files, true), await readFloor(files, true), await readFloor(files, true)]);
  row(
    "build's floor: read every log + zstd-decompress the segments",
    `${readUnzip.toFixed(0)} ms`,
    (readUnzip / bruteMs).toFixed(3),
    "",
  );
  const parallel = median([await readFloorInWorkers(files, 2), await readFloorInWorkers(files, 2)]);
  row(
    "build's floor: the same split over 2 worker threads (wall time)",
    `${parallel.toFixed(0)} ms`,
    (parallel / bruteMs).toFixed(3),
    `${availableParallelism()} cores`,
  );
  const tokens = await rawTokenise(files);
  row(
    "build's floor + a byte-level tokeniser (letter runs hashed, every field, no string made)",
    `${tokens.ms.toFixed(0)} ms`,
    (tokens.ms / bruteMs).toFixed(3),
    `${tokens.words} distinct words`,
  );

  // Cold: no index at all (the scan), first and complete; with and without the stored-bytes test, alternately.
  for (const q of QUERIES) {
    for (const enabled of [false, true]) {
      rawTests.enabled = enabled;
      unitCache.clear();
      const r = await timed(searchWorkspace({ root }, q.options));
      row(
        `cold (no index)${enabled ? "" : ", every unit decoded (no stored-bytes test)"} — ${q.name}`,
        `first ${Number.isNaN(r.first) ? "–" : r.first.toFixed(0)} ms, all ${r.all.toFixed(0)} ms`,
        (r.all / bruteMs).toFixed(3),
        `${r.n} hits`,
      );
    }
  }
  rawTests.enabled = true;

  // Build: where its time goes, then the real one.
  const phases = await buildBreakdown(root);
  const phaseTotal = Object.values(phases).reduce((a, b) => a + b, 0);
  row(
    "index build, phase by phase (replayed)",
    Object.entries(phases)
      .map(([k, v]) => `${k} ${v.toFixed(0)}`)
      .join(", ") + " ms",
    (phaseTotal / bruteMs).toFixed(3),
    `total ${phaseTotal.toFixed(0)} ms`,
  );
  const indexDir = join(base, "index");
  rmSync(indexDir, { recursive: true, force: true });
  const ctx = createStorageContext({ root });
  unitCache.clear();
  global.gc?.();
  const heap0 = process.memoryUsage();
  const index = openSearchIndex(ctx, indexDir);
  let t = now();
  await index.refresh();
  const buildMs = now() - t;
  const indexBytes = await index.diskBytes();
  row(
    "whole index build (refresh from nothing, written to disk)",
    `${buildMs.toFixed(0)} ms`,
    (buildMs / bruteMs).toFixed(3),
    `${index.stats.segmentsIndexed} segments, ${mib(index.stats.activeBytesIndexed)} of Active`,
  );
  row("index size on disk", mib(indexBytes), (indexBytes / plainBytes).toFixed(3), `÷ plain text ${mib(plainBytes)}`);

  // Warm: the same index in memory. As the runtime runs it (its own writes reported,
  // every folder re-checked at most every 2 s), and with every folder checked per query.
  const catalog = { ctx, list: async () => [] };
  // The decoded-unit cache serves a query's repeated reads (typing re-reads the same sessions); emptied, every read is from disk.
  const modes = [
    ["warm", indexPrefilter(index, undefined, 2_000), false],
    ["warm, decoded-unit cache emptied before each query", indexPrefilter(index, undefined, 2_000), true],
    ["warm, every folder re-checked", indexPrefilter(index), false],
  ] as const;
  for (const [mode, prefilter, empty] of modes) {
    for (const q of QUERIES) {
      const runs = [];
      for (let i = 0; i < 5; i++) {
        if (empty) unitCache.clear();
        runs.push(await timed(searchSessions(catalog, q.options, prefilter)));
      }
      const first = median(runs.map((r) => r.first));
      const all = median(runs.map((r) => r.all));
      row(
        `${mode} — ${q.name}`,
        `first ${Number.isNaN(first) ? "–" : first.toFixed(1)} ms, all ${all.toFixed(1)} ms`,
        (all / bruteMs).toFixed(4),
        `${runs[0]!.n} hits`,
      );
    }
  }
  global.gc?.();
  const heap1 = process.memoryUsage();
  const cached = unitCache.size;
  unitCache.clear();
  global.gc?.();
  const heap2 = process.memoryUsage();
  const held = (h: NodeJS.MemoryUsage) => h.heapUsed + h.arrayBuffers - heap0.heapUsed - heap0.arrayBuffers;
  row("memory of the warm index (heap + buffers after gc)", mib(held(heap2)), "", `RSS now ${mib(heap2.rss)}`);
  row(
    "memory of the index + the decoded-unit cache after the warm queries",
    mib(held(heap1)),
    "",
    `cache: ${(cached / 1e6).toFixed(1)} M characters (bound 16.8 M)`,
  );

  // Incremental: one turn appended to one session, then that session's update (median of 5 turns).
  const store = new Sessions({ root, batchWindowMs: 60_000 });
  const { session } = await store.open({ sessionId: "session-00042" });
  const updates: number[] = [];
  const before = index.stats.activeBytesIndexed;
  for (let i = 0; i < 5; i++) {
    session.append(
      "user/message",
      { content: [{ type: "text", text: text(Math.round(200 * scale) + 20) }] },
      { surface: "append" },
    );
    session.append(
      "assistant/message",
      { content: [{ type: "text", text: text(Math.round(2500 * scale) + 20) }] },
      { surface: "append" },
    );
    await store.flush(session);
    t = now();
    await index.update("default", "session-00042");
    updates.push(now() - t);
  }
  await store.close();
  const updateMs = median(updates);
  row(
    "incremental update after one turn (that session; median of 5 turns)",
    `${updateMs.toFixed(2)} ms`,
    (updateMs / bruteMs).toFixed(5),
    `${((index.stats.activeBytesIndexed - before) / 5).toFixed(0)} bytes indexed per turn`,
  );
  t = now();
  await index.refresh();
  row(
    "refresh with nothing changed (stamps of every session checked)",
    `${(now() - t).toFixed(0)} ms`,
    ((now() - t) / bruteMs).toFixed(4),
    `${count + 1} sessions`,
  );

  // What that check cannot go below: the two lstat calls per folder (messages/ for a draft or a compaction, Active for appends).
  const checkFloor = median(
    [0, 1, 2].map(() => {
      const t1 = now();
      for (const dir of sessionFolders(root)) {
        lstatSync(`${dir}/messages`, { throwIfNoEntry: false });
        lstatSync(`${dir}/messages/active.jsonl`, { throwIfNoEntry: false });
      }
      return now() - t1;
    }),
  );
  row(
    "that check's floor: readdir + two lstat per session folder",
    `${checkFloor.toFixed(0)} ms`,
    (checkFloor / bruteMs).toFixed(4),
    `${count + 1} sessions`,
  );

  // Cold start of a new process' index: load the snapshot.
  const reloaded = openSearchIndex(ctx, indexDir);
  t = now();
  await reloaded.refresh();
  row(
    "load the index from disk + refresh (a new process)",
    `${(now() - t).toFixed(0)} ms`,
    ((now() - t) / bruteMs).toFixed(4),
    "",
  );
  unitCache.clear();
  const r = await timed(searchSessions(catalog, QUERIES[0]!.options, indexPrefilter(reloaded)));
  row(
    "first query after that load — rare word",
    `first ${r.first.toFixed(1)} ms, all ${r.all.toFixed(1)} ms`,
    (r.all / bruteMs).toFixed(4),
    `${r.n} hits`,
  );

  console.log(
    `\nscale ${scale}, ${count} sessions × ~20 events + 1 × ${longEvents} events; ${readdirSync(plainDir).length} exports; node ${process.version}\n`,
  );
  console.log("| measurement | time / size | ÷ brute force | notes |\n|---|---|---|---|");
  console.log(rows.join("\n"));
  if (!process.env.BENCH_SEARCH_DIR) rmSync(base, { recursive: true, force: true });
  void statSync;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
