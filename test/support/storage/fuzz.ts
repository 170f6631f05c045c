// Seeded fuzzing of damaged and hostile session folders (issue 9), shared by
// test/storage/fuzz.test.ts (a few hundred cases) and bench/storage-fuzz.ts (10,000+).
// The oracle never uses the store's parser: it reads the files itself (split on "\n",
// JSON.parse, zstd) and checks what the store must guarantee whatever the damage.
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { compress, decompress } from "@mongodb-js/zstd";
import type { SessionEvent } from "../../../core/protocol";
import type { DamagedFolder } from "../../../core/session";
import { encodeId, Sessions, sessionPaths, type SessionPaths } from "../../../core/storage";
import { nodeFs, type FsSeam } from "../../../core/storage/fs/fs-seam";

/**
 * The real filesystem without fsync: the fuzz checks what recovery decides, not
 * durability (the crash tests do, with real fsyncs), and thousands of cases waiting on
 * fsync would take minutes on a busy disk.
 */
const fs: FsSeam = {
  ...nodeFs,
  open: async (path, flags) => {
    const handle = await nodeFs.open(path, flags);
    return {
      write: (b, o, l, p) => handle.write(b, o, l, p),
      read: (b, o, l, p) => handle.read(b, o, l, p),
      sync: async () => {},
      truncate: (n) => handle.truncate(n),
      stat: () => handle.stat(),
      close: () => handle.close(),
    };
  },
};

export type Outcome = "repaired" | "clean" | "read-only" | "refused" | "defect";
export const FAMILIES = [
  "active",
  "segments",
  "draft",
  "meta",
  "lock",
  "folders",
  "symlinks",
  "auxlinks",
  "strays",
] as const;
export type Family = (typeof FAMILIES)[number];

export interface CaseResult {
  seed: number;
  family: Family;
  mutation: string;
  outcome: Outcome;
  problems: string[];
}

const ID = "s";
const LONG_ID = "l".repeat(300);

export function prng(seed: number) {
  let a = seed >>> 0 || 1;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}

/**
 * Healthy workspaces to copy per case: session "s" in different shapes (with or without
 * segments, an open turn with a tool call, a draft), a neighbour "n" and a session with
 * an over-long (hashed) id.
 */
export async function buildBases(dir: string, count = 6): Promise<string[]> {
  const bases: string[] = [];
  for (let b = 0; b < count; b++) {
    const root = join(dir, `base-${b}`);
    mkdirSync(root, { recursive: true });
    const rand = prng(1000 + b);
    const store = new Sessions({ root, fs, batchWindowMs: 1 });
    const s = store.create({ id: ID });
    const turns = 2 + rand.int(5);
    for (let turn = 1; turn <= turns; turn++) {
      s.append("turn/start", { turn });
      s.append(
        "user/message",
        { content: [{ type: "text", text: `question ${turn} wörld `.repeat(1 + rand.int(4)) }] },
        { surface: "append" },
      );
      // Local providers reuse ids in every turn.
      const id = b % 2 === 0 ? "call_0" : `call-${turn}`;
      s.append(
        "assistant/message",
        {
          content: [
            { type: "text", text: `answer ${turn}` },
            { type: "tool-call", id, name: "read", arguments: { path: "a" } },
          ],
          model: "m1",
        },
        { surface: "append" },
      );
      const last = turn === turns && b % 3 === 0;
      if (!last) {
        s.append("tool/call", { toolCallId: id, name: "read", arguments: { path: "a" } });
        s.append(
          "tool/result",
          { toolCallId: id, toolName: "read", content: [{ type: "text", text: "x".repeat(10 + rand.int(200)) }] },
          { surface: "append" },
        );
        s.append("turn/end", { reason: "completed" });
      }
      if (turn === 1) s.append("session/title", { title: "Fuzzed", messageSeqs: [2], source: { kind: "user" } });
      if (b % 2 === 1 && turn % 2 === 0 && !last) {
        await store.flush(s);
        await store.closePrefix(s, s.lastSeq - 1, `summary ${turn}`);
      }
    }
    await store.flush(s);
    if (b % 3 === 0)
      await store.writeDraft(s, { draftId: "draft-1", blocks: [{ type: "text", text: "partial" }], model: "m1" });
    for (const id of ["n", LONG_ID]) {
      const other = store.create({ id });
      other.append(
        "user/message",
        { content: [{ type: "text", text: `hello ${id.slice(0, 5)}` }] },
        { surface: "append" },
      );
    }
    await store.close();
    bases.push(root);
  }
  return bases;
}

/** Every entry under `dir` (not following links) with its bytes or kind. */
function snapshot(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const path = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out.set(r, "link");
      // Never opened: reading a FIFO would wait for a writer.
      else if (st.isFIFO()) out.set(r, "fifo");
      else if (st.isDirectory()) {
        out.set(r, "dir");
        walk(path, r);
      } else out.set(r, readFileSync(path).toString("base64"));
    }
  };
  walk(dir, "");
  return out;
}

function diff(
  before: Map<string, string>,
  after: Map<string, string>,
  ignore: (rel: string) => boolean = () => false,
): string[] {
  const out: string[] = [];
  for (const [k, v] of before)
    if (!ignore(k) && after.get(k) !== v) out.push(`${k} ${after.has(k) ? "changed" : "removed"}`);
  for (const k of after.keys()) if (!ignore(k) && !before.has(k)) out.push(`${k} added`);
  return out;
}

const lines = (buf: Buffer) => buf.toString("utf8").split("\n");
const parses = (line: string) => {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
};

/** Records of every segment file, read with zstd directly (not the store's decoder). */
async function segmentRecords(p: SessionPaths): Promise<Set<string>> {
  const out = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(p.segments);
  } catch {
    return out;
  }
  for (const name of names) {
    try {
      const data = readFileSync(join(p.segments, name));
      const plain = name.endsWith(".zst") ? await decompress(data) : data;
      for (const l of lines(plain)) out.add(l);
    } catch {
      // unreadable: contributes nothing
    }
  }
  return out;
}

type Mutate = (ctx: {
  root: string;
  p: SessionPaths;
  outside: string;
  rand: ReturnType<typeof prng>;
}) => Promise<string> | string;

const victim = (outside: string) => join(outside, "victim.jsonl");

function activeLines(p: SessionPaths): string[] {
  return existsSync(p.active) ? lines(readFileSync(p.active)) : [];
}

const MUTATIONS: Record<Family, Mutate[]> = {
  active: [
    ({ p, rand }) => {
      const size = readFileSync(p.active).length;
      const at = rand.int(size + 1);
      truncateSync(p.active, at);
      return `truncate at ${at}/${size}`;
    },
    ({ p, rand }) => {
      const buf = readFileSync(p.active);
      if (buf.length === 0) return "flip (empty)";
      const at = rand.int(buf.length);
      buf[at] = buf[at]! ^ (1 << rand.int(8));
      writeFileSync(p.active, buf);
      return `flip a bit at ${at}`;
    },
    ({ p, rand }) => {
      const ls = activeLines(p);
      const full = ls.length - 1;
      if (full < 1) return "delete line (none)";
      const i = rand.pick([full - 2, full - 1, rand.int(full)].filter((x) => x >= 0));
      ls.splice(i, 1);
      writeFileSync(p.active, ls.join("\n"));
      return `delete line ${i} of ${full}`;
    },
    ({ p, rand }) => {
      const ls = activeLines(p);
      const i = rand.int(Math.max(1, ls.length - 1));
      ls.splice(i, 0, ls[i] ?? "");
      writeFileSync(p.active, ls.join("\n"));
      return `duplicate line ${i}`;
    },
    ({ p, rand }) => {
      const ls = activeLines(p);
      const i = rand.int(ls.length);
      ls.splice(
        i,
        0,
        rand.pick([
          "{garbage",
          "",
          "null",
          '{"seq":999999,"time":1,"type":"user/message","data":{}}',
          '{"kind":"summary"}',
          "\u0000\u0000\u0000",
        ]),
      );
      writeFileSync(p.active, ls.join("\n"));
      return `insert junk at line ${i}`;
    },
    ({ p, rand }) => {
      const ls = activeLines(p);
      if (ls.length < 3) return "swap (too short)";
      const i = rand.int(ls.length - 2);
      [ls[i], ls[i + 1]] = [ls[i + 1]!, ls[i]!];
      writeFileSync(p.active, ls.join("\n"));
      return `swap lines ${i},${i + 1}`;
    },
    ({ p, rand }) => {
      writeFileSync(
        p.active,
        readFileSync(p.active).toString("utf8") +
          rand.pick(['{"seq":', '{"seq":1000,"time":1,"type":"x","data":1}', "\n\n", "{}\n{"]),
      );
      return "append a partial or foreign tail";
    },
    ({ p }) => {
      writeFileSync(p.active, "");
      return "empty active.jsonl";
    },
    ({ p }) => {
      unlinkSync(p.active);
      return "remove active.jsonl";
    },
    ({ p }) => {
      unlinkSync(p.active);
      mkdirSync(p.active);
      return "active.jsonl is a directory";
    },
  ],
  segments: [
    ({ p, rand }) => {
      const seg = pickSegment(p, rand);
      if (!seg) return "flip segment (none)";
      const buf = readFileSync(seg);
      const at = rand.int(buf.length);
      buf[at] = buf[at]! ^ (1 << rand.int(8));
      writeFileSync(seg, buf);
      return `flip a bit of ${seg.slice(-30)} at ${at}`;
    },
    async ({ p, rand }) => {
      const seg = pickSegment(p, rand);
      if (!seg) return "edit segment (none)";
      const plain = (await decompress(readFileSync(seg))).toString("utf8");
      const edited = plain.replace(/wörld|answer|question/, (m) => m.replace(/^./, "x"));
      writeFileSync(seg, await compress(Buffer.from(edited, "utf8"), 3));
      return `valid edit inside ${seg.slice(-30)}`;
    },
    ({ p, rand }) => {
      const seg = pickSegment(p, rand);
      if (!seg) return "truncate segment (none)";
      truncateSync(seg, rand.int(readFileSync(seg).length));
      return `truncate ${seg.slice(-30)}`;
    },
    ({ p, rand }) => {
      const seg = pickSegment(p, rand);
      if (!seg) return "remove segment (none)";
      unlinkSync(seg);
      return `remove ${seg.slice(-30)}`;
    },
    async ({ p, rand }) => {
      // A segment over Active's first events: identical (an interrupted compaction) or not.
      const ls = activeLines(p).filter((l) => l && parses(l));
      if (ls.length === 0) return "overlap (no events)";
      const events = ls.slice(0, 1 + rand.int(ls.length)).map((l) => JSON.parse(l) as SessionEvent);
      const same = rand.next() < 0.5;
      const body = events
        .map((e, i) => JSON.stringify(same || i !== events.length - 1 ? e : { ...e, time: e.time + 1 }))
        .join("\n");
      const first = events[0]!.seq;
      const last = events.at(-1)!.seq;
      mkdirSync(p.segments, { recursive: true });
      const footer = { kind: "summary", throughSeq: last, text: "overlap", messageCount: 0 };
      writeFileSync(
        join(p.segments, `${String(first).padStart(12, "0")}-${String(last).padStart(12, "0")}.jsonl.zst`),
        await compress(Buffer.from(`${body}\n${JSON.stringify(footer)}\n`), 3),
      );
      return `${same ? "identical" : "disagreeing"} overlap segment ${first}-${last}`;
    },
    ({ p, rand }) => {
      mkdirSync(p.segments, { recursive: true });
      const name = rand.pick([
        "junk.txt",
        "000000000001-000000000001.jsonl",
        "999999999999-999999999999.jsonl.zst",
        "000000000000-000000000003.jsonl.zst",
      ]);
      writeFileSync(join(p.segments, name), "not a segment");
      return `stray file ${name}`;
    },
    ({ p }) => {
      if (existsSync(p.segments)) rmSync(p.segments, { recursive: true });
      writeFileSync(p.segments, "segments is a file");
      return "segments is a file";
    },
  ],
  draft: [
    ({ p, rand }) => {
      writeFileSync(p.draft, rand.pick(["\u0000\u0001garbage", "{", "[]", "null", '{"draftId":""}']));
      return "garbage draft";
    },
    ({ p, rand }) => {
      const time = rand.pick([1.5, -1, 2 ** 60, Number.NaN, "1"]);
      writeFileSync(
        p.draft,
        JSON.stringify({ draftId: "d-x", blocks: [{ type: "text", text: "t" }], time, afterSeq: 1 }),
      );
      return `draft time ${String(time)}`;
    },
    ({ p }) => {
      writeFileSync(
        p.draft,
        JSON.stringify({
          draftId: "d-y",
          blocks: [{ type: "tool-call", id: "call_0", name: "read", arguments: {} }],
          time: 5,
          afterSeq: 1,
          model: "m",
        }),
      );
      return "draft with a tool call reusing call_0";
    },
    ({ p }) => {
      writeFileSync(p.draft, JSON.stringify({ draftId: "d-z", blocks: [{ type: "bogus" }], time: 5, afterSeq: 1 }));
      return "draft with an invalid block";
    },
    ({ p }) => {
      if (existsSync(p.draft)) unlinkSync(p.draft);
      mkdirSync(p.draft);
      return "draft is a directory";
    },
  ],
  meta: [
    ({ p, rand }) => {
      writeFileSync(p.meta, rand.pick(["{not json", "", "[]", '{"version":2}']));
      return "garbage meta";
    },
    ({ p }) => {
      unlinkSync(p.meta);
      mkdirSync(p.meta);
      return "meta.json is a directory";
    },
    ({ p, rand }) => {
      const meta = JSON.parse(readFileSync(p.meta, "utf8"));
      const field = rand.pick(["title", "messageCount", "sessionId", "lastSeq", "model", "timeZone"]);
      const value = {
        title: "t".repeat(1 << 20),
        messageCount: 999_999,
        sessionId: "n",
        lastSeq: 0,
        model: "m".repeat(100_000),
        timeZone: "z".repeat(10_000),
      }[field];
      writeFileSync(p.meta, JSON.stringify({ ...meta, [field]: value }));
      return `meta ${field} wrong`;
    },
    ({ p }) => {
      unlinkSync(p.meta);
      return "meta.json removed";
    },
  ],
  lock: [
    ({ p }) => {
      mkdirSync(p.lock);
      return "writer.lock is a directory";
    },
    ({ p, rand }) => {
      writeFileSync(p.lock, rand.pick(["garbage", "{}", ""]));
      return "garbage writer.lock";
    },
    ({ p }) => {
      writeFileSync(p.lock, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), token: "t", startedAt: 1 }));
      return "lock of a dead pid";
    },
    ({ p }) => {
      writeFileSync(p.lock, JSON.stringify({ pid: process.pid, host: hostname(), token: "live", startedAt: 1 }));
      return "lock held by a live writer";
    },
  ],
  folders: [
    ({ root }) => {
      const p = sessionPaths(root, "default", LONG_ID);
      unlinkSync(p.meta);
      writeFileSync(p.idFile, ID);
      return "hashed folder's session-id names another session";
    },
    ({ p }) => {
      rmSync(p.messages, { recursive: true });
      return "messages/ removed";
    },
    ({ p }) => {
      rmSync(p.messages, { recursive: true });
      writeFileSync(p.messages, "x");
      return "messages is a file";
    },
    ({ root }) => {
      const area = join(root, ".downcity", "agents", "default", "sessions");
      mkdirSync(join(area, ".deleted-x"));
      mkdirSync(join(area, "Not~Canonical"));
      writeFileSync(join(area, "stray-file"), "x");
      return "leftovers and foreign names in the area";
    },
  ],
  // Links into the history: refused (the history stays strict).
  symlinks: [
    ({ p, outside }) => link(p.active, victim(outside), "active.jsonl"),
    ({ p, outside }) => link(p.messages, join(outside, "dir"), "messages/"),
    ({ p, outside }) => link(p.dir, join(outside, "dir"), "session folder"),
    ({ p, outside }) => link(p.segments, join(outside, "dir"), "segments/"),
    ({ root, outside }) => link(join(root, ".downcity"), join(outside, "dir"), ".downcity/"),
  ],
  // Issue 21: an auxiliary file that is a link (anywhere), a FIFO or a directory never blocks the intact log.
  auxlinks: [
    ({ p, outside, rand }) => {
      const [what, path] = rand.pick(auxFiles(p));
      const target = rand.pick([victim(outside), join(outside, "dir"), join(outside, "nothing"), p.active]);
      if (existsSync(path) || isLink(path)) rmSync(path, { recursive: true, force: true });
      symlinkSync(target, path);
      return `${what} is a link to ${target.startsWith(outside) ? target.slice(outside.length + 1) : "the session's own log"}`;
    },
    ({ p, rand }) => {
      const [what, path] = rand.pick(auxFiles(p));
      rmSync(path, { recursive: true, force: true });
      execFileSync("mkfifo", [path]);
      return `${what} is a FIFO`;
    },
    ({ p, rand }) => {
      const [what, path] = rand.pick(auxFiles(p));
      rmSync(path, { recursive: true, force: true });
      mkdirSync(join(path, "inner"), { recursive: true });
      return `${what} is a directory with content`;
    },
  ],
  // Issue 21: what is not a session in the area (a list leaves it out, reports it damaged).
  strays: [
    ({ root, rand }) => {
      const ghost = join(areaOf(root), "ghost");
      const shape = rand.pick(["empty", "messages/", "a copy of n's meta.json"] as const);
      mkdirSync(join(ghost, "messages"), { recursive: true });
      if (shape === "empty") rmSync(join(ghost, "messages"), { recursive: true });
      if (shape === "a copy of n's meta.json")
        cpSync(sessionPaths(root, "default", "n").meta, join(ghost, "meta.json"));
      return `stray directory ghost/ (${shape})`;
    },
    ({ root, p, rand }) => {
      const hashed = sessionPaths(root, "default", LONG_ID);
      writeFileSync(hashed.idFile, rand.pick([ID, "n"]));
      const meta = rand.pick(["removed", "s's meta.json", "kept"] as const);
      if (meta === "removed") unlinkSync(hashed.meta);
      if (meta === "s's meta.json") cpSync(p.meta, hashed.meta);
      return `hashed folder's session-id names another session (meta ${meta})`;
    },
    ({ root, rand }) => {
      const hashed = sessionPaths(root, "default", LONG_ID);
      const corrupt = rand.pick(["garbage bytes", "removed", "empty"] as const);
      if (corrupt === "removed") unlinkSync(hashed.idFile);
      else writeFileSync(hashed.idFile, corrupt === "empty" ? "" : Buffer.from([0xff, 0xfe, 0x00, 0x2f]));
      unlinkSync(hashed.meta);
      return `corrupt session id: hashed folder's session-id ${corrupt}`;
    },
    ({ root, rand }) => {
      const n = sessionPaths(root, "default", "n");
      const meta = JSON.parse(readFileSync(n.meta, "utf8"));
      const id = rand.pick(["n\u0000x", "N", "", "l".repeat(5000), ID]);
      writeFileSync(n.meta, JSON.stringify({ ...meta, sessionId: id, title: "Borrowed" }));
      return `corrupt session id in n's meta.json (${JSON.stringify(id.slice(0, 10))})`;
    },
    ({ root, rand }) => {
      const name = rand.pick(["Not~Canonical", "~zz", "s~~deadbeef", ".hidden-but-not-temp", "x y"]);
      const dir = join(areaOf(root), name);
      cpSync(sessionPaths(root, "default", "n").dir, dir, { recursive: true });
      return `a copy of session n under the non-canonical name ${name}`;
    },
  ],
};

const areaOf = (root: string) => join(root, ".downcity", "agents", "default", "sessions");
const auxFiles = (p: SessionPaths): [string, string][] => [
  ["meta.json", p.meta],
  ["draft", p.draft],
  ["writer.lock", p.lock],
];
function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * What a list must show (the oracle reads the folders itself): only real sessions, each
 * at the folder its id encodes to, holding an event log, with no other session's title;
 * the session under test listed exactly once when its folder is intact; every other
 * folder of the area left out (and reported damaged, except the store's temporaries).
 */
function checkList(
  root: string,
  items: { sessionId: string; title?: string | undefined; agentId: string }[],
  damaged: DamagedFolder[],
  family: Family,
): string[] {
  const problems: string[] = [];
  const area = areaOf(root);
  const known = new Set([ID, "n", LONG_ID]);
  const listedFolders = new Set<string>();
  for (const item of items) {
    const folder = encodeId(item.sessionId);
    listedFolders.add(folder);
    if (!known.has(item.sessionId))
      problems.push(`listed an unknown id ${JSON.stringify(item.sessionId.slice(0, 40))}`);
    if (item.agentId !== "default") problems.push(`listed agent ${item.agentId}`);
    const dir = join(area, folder);
    const hasLog =
      existsSync(join(dir, "messages", "active.jsonl")) ||
      (existsSync(join(dir, "messages", "segments")) && readdirSync(join(dir, "messages", "segments")).length > 0);
    if (!hasLog) problems.push(`listed ${item.sessionId.slice(0, 20)} whose folder holds no event log`);
    if (item.sessionId !== ID && item.title === "Fuzzed")
      problems.push(`${item.sessionId.slice(0, 20)} borrowed the title of ${ID}`);
    if (item.title === "Borrowed")
      problems.push(`${item.sessionId.slice(0, 20)} listed the title of a corrupt meta.json`);
  }
  if (
    (family === "auxlinks" || family === "strays") &&
    items.filter((i) => i.sessionId === ID && i.title === "Fuzzed").length !== 1
  )
    problems.push(
      `${ID} (intact) is not listed as itself: ${JSON.stringify(items.map((i) => [i.sessionId.slice(0, 20), i.title]))}`,
    );
  const reported = new Set(damaged.map((d) => d.folder));
  for (const d of damaged) {
    if (listedFolders.has(d.folder)) problems.push(`folder ${d.folder.slice(0, 30)} both listed and damaged`);
    if (!d.reason) problems.push(`damaged ${d.folder.slice(0, 30)} without a reason`);
  }
  let names: string[] = [];
  try {
    names = readdirSync(area, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name);
  } catch {
    // the area itself was damaged away
  }
  for (const name of names)
    if (!listedFolders.has(name) && !reported.has(name))
      problems.push(`folder ${name.slice(0, 30)} neither listed nor reported damaged`);
  return problems;
}

function pickSegment(p: SessionPaths, rand: ReturnType<typeof prng>): string | undefined {
  if (!existsSync(p.segments)) return undefined;
  const names = readdirSync(p.segments).filter((n) => n.endsWith(".zst"));
  return names.length ? join(p.segments, rand.pick(names)) : undefined;
}

function link(path: string, target: string, what: string): string {
  if (existsSync(path)) renameSync(path, `${path}.moved`);
  symlinkSync(target, path);
  return `${what} is a link outside the workspace`;
}

/** The outside world a link may point to: a log-looking file and a folder holding a copy of a session. */
function makeOutside(dir: string, base: string): void {
  mkdirSync(dir);
  const p = sessionPaths(base, "default", ID);
  writeFileSync(victim(dir), `${readFileSync(p.active, "utf8")}{"seq":99,"ti`);
  cpSync(p.messages, join(dir, "dir"), { recursive: true });
  writeFileSync(join(dir, "dir", "meta.json"), readFileSync(p.meta));
  mkdirSync(join(dir, "dir", "agents"));
}

const withTimeout = <T>(p: Promise<T>, ms: number, what: string) => {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(`hung: ${what} took over ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
};

/** A clear error: one of the store's own, or one that names the file it is about. */
function clearError(error: unknown, root: string): string | undefined {
  if (!(error instanceof Error)) return `threw a non-error ${String(error)}`;
  if (["SessionRefusedError", "SessionNotFoundError", "SegmentError"].includes(error.name)) return undefined;
  if (error.message.includes(root)) return undefined;
  return `unclear error ${error.name}: ${error.message.slice(0, 200)}`;
}

export async function runCase(seed: number, bases: string[], work: string, only?: Family): Promise<CaseResult> {
  const rand = prng(seed);
  const family = only ?? FAMILIES[seed % FAMILIES.length]!;
  const dir = mkdtempSync(join(work, "case-"));
  const root = join(dir, "ws");
  const outside = join(dir, "outside");
  const base = bases[rand.int(bases.length)]!;
  cpSync(base, root, { recursive: true });
  makeOutside(outside, base);
  const p = sessionPaths(root, "default", ID);
  const problems: string[] = [];
  let outcome: Outcome = "defect";
  let mutation = "";
  try {
    mutation = await rand.pick(MUTATIONS[family])({ root, p, outside, rand });
    const outsideBefore = snapshot(outside);
    const mutatedActive = existsSync(p.active) && lstatSync(p.active).isFile() ? readFileSync(p.active) : undefined;
    const workspaceBefore = snapshot(root);
    const segmentsBefore = await segmentRecords(p).catch(() => new Set<string>());
    const ignoreLock = (rel: string) => rel.endsWith("writer.lock") || rel.includes("writer.lock.stale-");

    const store = new Sessions({ root, fs, batchWindowMs: 1, retryMs: 1, flushAttempts: 2, lockStaleMs: 60_000 });
    try {
      const damaged: DamagedFolder[] = [];
      const items = await withTimeout(
        store.list({ verifyLogs: true, onDamaged: (d) => damaged.push(d) }),
        10_000,
        "list",
      );
      for (const item of items)
        if ((item.title?.length ?? 0) > 500) problems.push(`listed a title of ${item.title!.length} characters`);
      if (items.filter((i) => i.sessionId === ID).length > 1) problems.push(`session ${ID} listed twice`);
      problems.push(...checkList(root, items, damaged, family));
      let opened: Awaited<ReturnType<Sessions["open"]>> | undefined;
      try {
        opened = await withTimeout(store.open({ sessionId: ID }), 10_000, "open");
      } catch (error) {
        const unclear = clearError(error, root);
        if (unclear) problems.push(unclear);
        if ((error as Error).message.startsWith("hung")) problems.push((error as Error).message);
        outcome = "refused";
      }
      if (opened?.report.readOnly !== undefined) {
        outcome = "read-only";
        await store.close();
        const changed = diff(workspaceBefore, snapshot(root), ignoreLock);
        if (changed.length) problems.push(`read-only open changed files: ${changed.slice(0, 3).join(", ")}`);
      } else if (opened) {
        outcome = opened.report.repaired ? "repaired" : "clean";
        problems.push(...(await checkWritable(store, opened.session, p, root, mutatedActive, segmentsBefore)));
      } else {
        await store.close();
        const changed = diff(workspaceBefore, snapshot(root), ignoreLock);
        if (changed.length) problems.push(`refused open changed files: ${changed.slice(0, 3).join(", ")}`);
      }
    } finally {
      await store.close().catch(() => {});
    }
    const escaped = diff(outsideBefore, snapshot(outside));
    if (escaped.length) problems.push(`wrote outside the workspace: ${escaped.slice(0, 3).join(", ")}`);
    if (family === "symlinks" && (outcome === "repaired" || outcome === "clean")) {
      // A linked part of the history must be refused (lists skip it).
      problems.push("opened a session through a symbolic link");
    }
    // The session under test is intact in these families: it must open writable.
    if ((family === "auxlinks" || family === "strays") && outcome !== "repaired" && outcome !== "clean")
      problems.push(`the intact session opened ${outcome}`);
    if (family === "auxlinks" && outcome === "clean")
      problems.push("a broken auxiliary file was not reported as repaired");
  } catch (error) {
    problems.push(`harness or store threw: ${(error as Error).stack?.slice(0, 300)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { seed, family, mutation, outcome: problems.length ? "defect" : outcome, problems };
}

/** What a writable open must guarantee: nothing complete lost, contiguous, recovered once, still writable. */
async function checkWritable(
  store: Sessions,
  session: Awaited<ReturnType<Sessions["open"]>>["session"],
  p: SessionPaths,
  root: string,
  mutated: Buffer | undefined,
  segmentsBefore: Set<string>,
): Promise<string[]> {
  const problems: string[] = [];
  const all: SessionEvent[] = [];
  let page = await store.messages({ sessionId: ID });
  all.unshift(...page.events);
  let pageError: Error | undefined;
  for (let guard = 0; page.hasOlder && guard < 1000; guard++) {
    try {
      page = await store.messages({ sessionId: ID }, { beforeSequence: page.firstSeq });
    } catch (error) {
      // An older segment is read only by its page: damage there is reported for that page.
      pageError = error as Error;
      if (pageError.name !== "SegmentError") problems.push(`page failed unclearly: ${pageError.message}`);
      break;
    }
    all.unshift(...page.events);
  }
  const firstSeq = pageError ? (all[0]?.seq ?? 1) : 1;
  all.forEach((e, i) => {
    if (e.seq !== firstSeq + i) problems.push(`history seq ${e.seq} at position ${i + 1}`);
  });
  // Tool calls answered in their turn, no open turn.
  const open = new Map<string, number>();
  for (const e of session.events()) {
    if (e.type === "turn/start")
      for (const [id] of open) problems.push(`tool call ${id} left without a result in its turn`);
    if (e.type === "turn/start") open.clear();
    if (e.type === "assistant/message" && session.surface.nodes.includes(e.seq)) {
      for (const b of (e.data as { content: { type: string; id?: string }[] }).content)
        if (b.type === "tool-call") open.set(b.id!, e.seq);
    }
    if (e.type === "tool/result") open.delete((e.data as { toolCallId: string }).toolCallId);
  }
  for (const [id] of open) problems.push(`tool call ${id} left without a result`);
  const ends = session.events().filter((e) => e.type === "turn/start" || e.type === "turn/end");
  if (ends.at(-1)?.type === "turn/start") problems.push("turn left open");
  session.append("user/message", { content: [{ type: "text", text: "after the fuzz" }] }, { surface: "append" });
  await store.flush(session);
  const lastSeq = session.lastSeq;
  await store.close();
  // Every complete, parseable line of the damaged log is still in Active, in a backup
  // of cut bytes, or (an interrupted compaction) already in a segment.
  if (mutated) {
    const keptLines = new Set(existsSync(p.active) ? lines(readFileSync(p.active)) : []);
    for (const name of readdirSync(p.messages))
      if (name.startsWith("active.jsonl.cut-"))
        for (const l of lines(readFileSync(join(p.messages, name)))) keptLines.add(l);
    const segs = await segmentRecords(p);
    const ls = lines(mutated);
    ls.slice(0, -1).forEach((l, i) => {
      if (l && parses(l) && !keptLines.has(l) && !segs.has(l) && !segmentsBefore.has(l))
        problems.push(`complete line ${i + 1} was cut without a backup: ${l.slice(0, 80)}`);
    });
  }
  const again = new Sessions({ root, fs });
  try {
    const second = await again.open({ sessionId: ID });
    if (second.report.repaired) problems.push(`second open repaired again: ${second.report.actions.join(" | ")}`);
    if (second.report.readOnly) problems.push(`second open read-only: ${second.report.readOnly}`);
    if (second.session.lastSeq !== lastSeq)
      problems.push(`second open has seq ${second.session.lastSeq}, wrote ${lastSeq}`);
  } catch (error) {
    problems.push(`second open failed: ${(error as Error).message}`);
  } finally {
    await again.close();
  }
  return problems;
}

/** Runs seeds first..first+count-1, `parallel` at a time (cases wait on fsync more than on the CPU). */
export async function runCases(
  first: number,
  count: number,
  options: { bases?: number; parallel?: number; onResult?: (r: CaseResult) => void } = {},
) {
  const work = mkdtempSync(join(tmpdir(), "downcity-fuzz-"));
  try {
    const bases = await buildBases(join(work, "bases"), options.bases ?? 6);
    const counts: Record<Outcome, number> = { repaired: 0, clean: 0, "read-only": 0, refused: 0, defect: 0 };
    const byFamily: Record<string, Record<Outcome, number>> = {};
    const defects: CaseResult[] = [];
    let next = first;
    const worker = async () => {
      while (next < first + count) {
        const r = await runCase(next++, bases, work);
        counts[r.outcome]++;
        (byFamily[r.family] ??= { repaired: 0, clean: 0, "read-only": 0, refused: 0, defect: 0 })[r.outcome]++;
        if (r.outcome === "defect") defects.push(r);
        options.onResult?.(r);
      }
    };
    await Promise.all(Array.from({ length: options.parallel ?? 4 }, worker));
    defects.sort((a, b) => a.seed - b.seed);
    return { counts, byFamily, defects };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
