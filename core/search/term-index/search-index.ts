// Over 350 lines: one folder's index state (sessions, units and their owners, postings, the pending journal) changes together on every scan, load and persist; the on-disk format is index-files.ts, the postings postings.ts.
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { join, sep } from "node:path";
import type { SessionEvent } from "../../protocol";
import { sessionKey } from "../../protocol/refs";
import type { StorageContext } from "../../storage/context";
import { isErrno } from "../../storage/fs/fs-seam";
import { decodeId } from "../../storage/id-codec";
import { agentsDir, areaDir, DOWNCITY_DIR, sessionPaths, type Area } from "../../storage/layout";
import { parseMeta } from "../../storage/meta";
import { looksLikeEvent } from "../../storage/records";
import { readSegment } from "../../storage/segments-dir";
import { lstatQuiet, readFileQuiet, segmentNamesSync } from "../read-sync";
import { eventFields } from "../extract";
import { fold } from "../fold";
import type { Matcher } from "../matcher";
import { Postings } from "./postings";
import { IndexFiles, type JournalRecord } from "./index-files";
import { literalTerms, addWords } from "./words";

/** What the index knows of one session folder, and the file stamps it was indexed at. */
export interface IndexedSession {
  agentId: string;
  sessionId: string;
  area: Area;
  title?: string;
  updatedAt: number;
  /**
   * `messages/` mtime: a draft written or removed, and a compaction (its new Active is
   * renamed in, right after its segment is published), change it.
   */
  messagesMtime: number;
  /** ino:size:mtime of Active when last looked at. */
  activeStamp: string;
  activeIno: number;
  /** Bytes of Active indexed: whole records only. */
  activeSize: number;
  activeUnits: number[];
  segments: { file: string; unit: number }[];
  draft: boolean;
}

/** A query's answer from the postings: which units may match, and (when few) the list of them. */
export interface Candidates {
  may(unit: number): boolean;
  units?: readonly number[];
}

/** Candidate units up to which a plan starts from their owners rather than walking every session. */
const SELECTIVE = 4096;

/**
 * The folders a refresh must check for one query: an agent's, the live area's, one
 * session's. Sessions outside it keep what the index knew (the query does not read them).
 */
export interface RefreshScope {
  agentId?: string;
  /** Only the live area ("sessions"); "archived" and "all" check both (a live copy wins over an archived one). */
  liveOnly?: boolean;
  session?: { agentId: string; sessionId: string };
}

/** Which parts of a session a query must read. */
export interface SessionPlan {
  session: IndexedSession;
  active: boolean;
  segments: Set<string>;
}

const MESSAGES = `${sep}messages`;
const ACTIVE = `${sep}messages${sep}active.jsonl`;
/** `core/protocol`'s one encoding; it is written into the index's journal (`{ t: "d", k }`): see VERSION in index-files.ts. */
const keyOf = (agentId: string, sessionId: string) => sessionKey({ agentId, sessionId });
const stampOf = (st: Stats | undefined) => (st ? `${st.ino}:${st.size}:${st.mtimeMs}` : "");

const lstatOrUndefined = lstatQuiet;

/** The index's order: newest first, then by agent and session id (a total order, so a plan from a few owners sorts as the whole list does). */
const newestFirst = (a: IndexedSession, b: IndexedSession) =>
  b.updatedAt - a.updatedAt ||
  (a.sessionId < b.sessionId
    ? -1
    : a.sessionId > b.sessionId
      ? 1
      : a.agentId < b.agentId
        ? -1
        : a.agentId > b.agentId
          ? 1
          : 0);
const unitsOf = (s: IndexedSession) => [...s.activeUnits, ...s.segments.map((g) => g.unit)];

function wordsOfEvents(events: Iterable<SessionEvent>): Set<string> {
  const words = new Set<string>();
  // Reasoning is indexed too: a query that leaves it out still finds its units, the scan then skips it.
  const texts: string[] = [];
  for (const event of events) for (const field of eventFields(event, true)) texts.push(field.text);
  // One fold and one word pass over the unit's text ("\n" splits words as any non-word character does).
  addWords(fold(texts.join("\n")), words);
  return words;
}

/**
 * The derived search index of one workspace folder (issue 23): per unit (a closed
 * segment, or a run of records appended to Active) the words it holds. Closed segments
 * are indexed once, keyed by file identity (a fork's hard links share them; archive and
 * unarchive keep them); Active is indexed by its appended bytes. `refresh()` compares
 * every session folder's stamps with what was indexed and indexes only what changed.
 * It only narrows what a search reads: hits always come from the logs.
 */
export class SearchIndex {
  private sessions = new Map<string, IndexedSession>();
  /** Unit id → identity key (segments: dev:ino:size:mtime). */
  private units = new Map<number, string>();
  private segmentUnits = new Map<string, number>();
  private postings = new Postings();
  private nextUnit = 0;
  private loaded = false;
  private queue: Promise<unknown> = Promise.resolve();
  private pending: JournalRecord[] = [];
  private readonly dirty = new Map<string, [string, string]>();
  private lastFull: number | undefined;
  /** Bumped on every change of `sessions`; the sorted list is rebuilt only then. */
  private version = 0;
  private sorted: IndexedSession[] | undefined;
  private sortedVersion = -1;
  /** Unit → keys of the sessions that hold it (a fork shares its segments); sessions with a draft. */
  private owners = new Map<number, string[]>();
  private drafts = new Set<string>();
  private readonly clock: () => number;
  /** Counters for tests and benchmarks. */
  readonly stats = { segmentsIndexed: 0, activeBytesIndexed: 0, sessionsChecked: 0, rebuilds: 0, loads: 0 };

  constructor(
    private readonly ctx: StorageContext,
    private readonly files: IndexFiles | undefined,
  ) {
    this.clock = ctx.clock;
  }

  /** The index directory of a workspace root under a host's index directory. */
  static dirFor(indexDir: string, root: string): string {
    return join(indexDir, createHash("sha256").update(root).digest("hex").slice(0, 24));
  }

  /** Runs `fn` after everything queued before it (one refresh or write at a time). */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Brings the index up to date with the folder and returns its sessions, newest first.
   * Every session folder's stamps are checked (a few lstat calls each), unless a full
   * check is younger than `maxAgeMs`: then only the sessions `changed()` named since are.
   * A host that reports its own writes (the runtime) and sets a short `maxAgeMs` answers
   * keystroke after keystroke without re-checking 10,000 folders; another process' writes
   * are seen at the next full check.
   */
  refresh(options: { maxAgeMs?: number; scope?: RefreshScope } = {}): Promise<IndexedSession[]> {
    return this.exclusive(async () => {
      if (!this.loaded) await this.load();
      const fresh = this.lastFull !== undefined && this.clock() - this.lastFull < (options.maxAgeMs ?? 0);
      const scope = options.scope ?? {};
      if (fresh) {
        const dirty = [...this.dirty.values()];
        this.dirty.clear();
        for (const [agentId, sessionId] of dirty) await this.updateOne(agentId, sessionId);
      } else if (scope.session) {
        // One session's search (the chat's "search this whole session"): that folder alone.
        this.dirty.delete(keyOf(scope.session.agentId, scope.session.sessionId));
        await this.updateOne(scope.session.agentId, scope.session.sessionId);
      } else if (scope.agentId !== undefined || scope.liveOnly) {
        // Only the folders the query reads; what the host reported stays queued for a full check.
        await this.scanFolder(scope);
      } else {
        this.dirty.clear();
        await this.scanFolder({});
        this.lastFull = this.clock();
      }
      await this.persist();
      // Sorted once per change, not per keystroke.
      if (!this.sorted || this.sortedVersion !== this.version) {
        this.sorted = [...this.sessions.values()].sort(newestFirst);
        this.sortedVersion = this.version;
      }
      return this.sorted;
    });
  }

  /**
   * Whether the index can answer now: it was loaded from disk or built in this process.
   * A search before that reads the logs itself (streaming) while the index is built.
   */
  ready(): Promise<boolean> {
    return this.exclusive(async () => {
      if (!this.loaded) await this.load();
      return this.lastFull !== undefined || this.stats.loads > 0;
    });
  }

  /** A host's note that a session changed (appended, closed, renamed, forked, moved, deleted): checked at the next refresh. */
  changed(agentId: string, sessionId: string): void {
    this.dirty.set(keyOf(agentId, sessionId), [agentId, sessionId]);
  }

  /** Re-indexes one session now (a host that knows it changed: after a turn, a rename, a compaction). */
  update(agentId: string, sessionId: string): Promise<void> {
    return this.exclusive(async () => {
      if (!this.loaded) await this.load();
      await this.updateOne(agentId, sessionId);
      await this.persist();
    });
  }

  private async updateOne(agentId: string, sessionId: string): Promise<void> {
    for (const area of ["sessions", "archived"] as const) {
      const paths = sessionPaths(this.ctx.root, agentId, sessionId, area);
      if (lstatOrUndefined(paths.dir)?.isDirectory()) return this.refreshSession(agentId, sessionId, area, paths.dir);
    }
    this.drop(keyOf(agentId, sessionId));
  }

  private async load(): Promise<void> {
    this.loaded = true;
    if (!this.files) return;
    const state = await this.files.load(this.ctx.root);
    if (!state) {
      this.stats.rebuilds++;
      return;
    }
    this.stats.loads++;
    try {
      this.postings = Postings.load(state.snapshot.words, state.snapshot.at, state.snapshot.len, state.blob);
      for (const [id, key] of state.snapshot.units) this.setUnit(id, key);
      for (const s of state.snapshot.sessions) this.setSession(keyOf(s.agentId, s.sessionId), s);
      this.nextUnit = state.snapshot.nextUnit;
      for (const record of state.journal) this.apply(record);
      this.check();
      this.version++;
    } catch {
      // A snapshot or journal that does not hold together is dropped and rebuilt.
      this.reset();
      this.stats.rebuilds++;
      await this.files.clear();
    }
  }

  private reset(): void {
    this.sessions = new Map();
    this.owners = new Map();
    this.drafts = new Set();
    this.version++;
    this.units = new Map();
    this.segmentUnits = new Map();
    this.postings = new Postings();
    this.nextUnit = 0;
  }

  /** Every unit a session names exists; ids are below nextUnit. */
  private check(): void {
    for (const s of this.sessions.values()) {
      if (
        typeof s.agentId !== "string" ||
        typeof s.sessionId !== "string" ||
        !Array.isArray(s.segments) ||
        !Array.isArray(s.activeUnits)
      )
        throw new Error("bad session record");
      for (const u of [...s.activeUnits, ...s.segments.map((g) => g.unit)])
        if (!this.units.has(u) || u >= this.nextUnit) throw new Error("unknown unit");
    }
  }

  private setUnit(id: number, key: string): void {
    this.units.set(id, key);
    if (key.startsWith("seg:")) this.segmentUnits.set(key, id);
  }

  private apply(record: JournalRecord): void {
    if (record.t === "u") {
      if (record.id !== this.nextUnit) throw new Error("journal unit out of order");
      this.setUnit(record.id, record.key);
      this.postings.add(record.id, record.words);
      this.nextUnit = record.id + 1;
    } else if (record.t === "s") this.setSession(keyOf(record.s.agentId, record.s.sessionId), record.s);
    else this.deleteSession(record.k);
  }

  private newUnit(key: string, words: Set<string>): number {
    const id = this.nextUnit++;
    this.setUnit(id, key);
    this.postings.add(id, words);
    this.pending.push({ t: "u", id, key, words });
    return id;
  }

  private drop(key: string): void {
    if (!this.deleteSession(key)) return;
    this.version++;
    this.pending.push({ t: "d", k: key });
  }

  /** Checks every session folder in `scope` (all of them for `{}`), and drops the indexed ones in it that are gone. */
  private async scanFolder(scope: RefreshScope): Promise<void> {
    const seen = new Set<string>();
    let visited = 0;
    const root = join(this.ctx.root, DOWNCITY_DIR);
    const isDir = (p: string) => lstatOrUndefined(p)?.isDirectory() === true;
    const areas = scope.liveOnly ? (["sessions"] as const) : (["sessions", "archived"] as const);
    if (isDir(root) && isDir(agentsDir(this.ctx.root))) {
      for (const agentName of await this.dirNames(agentsDir(this.ctx.root))) {
        const agentId = decodeId(agentName);
        if (agentId === undefined || (scope.agentId !== undefined && agentId !== scope.agentId)) continue;
        for (const area of areas) {
          const base = areaDir(this.ctx.root, agentId, area);
          if (!isDir(base)) continue;
          for (const name of await this.dirNames(base)) {
            // Synchronous reads below: the event loop runs between sessions.
            if (++visited % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
            const sessionId = decodeId(name) ?? this.hashedId(base + sep + name);
            if (sessionId === undefined) continue;
            const key = keyOf(agentId, sessionId);
            if (seen.has(key)) continue; // live wins over a stray archived copy
            seen.add(key);
            await this.refreshSession(agentId, sessionId, area, base + sep + name);
          }
        }
      }
    }
    for (const [key, s] of [...this.sessions])
      if (
        !seen.has(key) &&
        (scope.agentId === undefined || s.agentId === scope.agentId) &&
        (!scope.liveOnly || s.area === "sessions")
      )
        this.drop(key);
  }

  private hashedId(dir: string): string | undefined {
    try {
      return this.ctx.fs.readTextSync(join(dir, "session-id"));
    } catch {
      return undefined;
    }
  }

  private async dirNames(dir: string): Promise<string[]> {
    try {
      return (await this.ctx.fs.readdir(dir))
        .filter((e) => e.isDirectory() && !e.name.startsWith("."))
        .map((e) => e.name);
    } catch (error) {
      if (isErrno(error, "ENOENT", "ENOTDIR")) return [];
      throw error;
    }
  }

  /** Compares one session folder's stamps with the index and indexes what changed. */
  private async refreshSession(agentId: string, sessionId: string, area: Area, dir: string): Promise<void> {
    this.stats.sessionsChecked++;
    const key = keyOf(agentId, sessionId);
    const prev = this.sessions.get(key);
    // Two lstat calls per unchanged session, paths by concatenation: a full check visits every folder.
    const messages = lstatOrUndefined(dir + MESSAGES);
    // A linked messages folder is never read (the store refuses the session too).
    if (!messages?.isDirectory()) {
      if (prev) this.drop(key);
      return;
    }
    const active = lstatOrUndefined(dir + ACTIVE);
    const activeFile = active?.isFile() ? active : undefined;
    if (
      prev &&
      prev.area === area &&
      prev.messagesMtime === messages.mtimeMs &&
      prev.activeStamp === stampOf(activeFile)
    )
      return;
    const paths = sessionPaths(this.ctx.root, agentId, sessionId, area);

    const meta = (() => {
      try {
        return parseMeta(this.ctx.fs.readTextSync(paths.meta));
      } catch {
        return undefined;
      }
    })();
    const next: IndexedSession = {
      agentId: paths.agentId,
      sessionId: paths.sessionId,
      area: paths.area,
      updatedAt: meta?.updatedAt ?? activeFile?.mtimeMs ?? messages.mtimeMs,
      messagesMtime: messages.mtimeMs,
      activeStamp: stampOf(activeFile),
      activeIno: activeFile?.ino ?? 0,
      activeSize: 0,
      activeUnits: [],
      segments: prev?.segments ?? [],
      draft: lstatOrUndefined(paths.draft)?.isFile() === true,
    };
    if (meta?.title !== undefined) next.title = meta.title;

    if (
      !prev ||
      prev.messagesMtime !== messages.mtimeMs ||
      prev.activeIno !== (activeFile?.ino ?? 0) ||
      prev.area !== area
    ) {
      const segments: { file: string; unit: number }[] = [];
      for (const name of segmentNamesSync(paths)) {
        const st = lstatOrUndefined(join(paths.segments, name.file));
        if (!st?.isFile()) continue;
        const identity = `seg:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
        let unit = this.segmentUnits.get(identity);
        if (unit === undefined) {
          let events: SessionEvent[] = [];
          try {
            events = (await readSegment(this.ctx, paths, name)).events;
          } catch {
            // A segment the store cannot read gives no hit: nothing to index.
          }
          unit = this.newUnit(identity, wordsOfEvents(events));
          this.stats.segmentsIndexed++;
        }
        segments.push({ file: name.file, unit });
      }
      next.segments = segments;
    }

    if (activeFile) {
      const from =
        prev && prev.activeIno === activeFile.ino && activeFile.size >= prev.activeSize ? prev.activeSize : 0;
      next.activeUnits = from > 0 ? [...prev!.activeUnits] : [];
      next.activeSize = from;
      if (activeFile.size > from) {
        const appended = readFileQuiet(paths.active, from, activeFile.size) ?? Buffer.alloc(0);
        const end = appended.lastIndexOf(0x0a) + 1;
        if (end > 0) {
          const events: SessionEvent[] = [];
          for (const line of appended.subarray(0, end).toString("utf8").split("\n")) {
            if (!line) continue;
            try {
              const value: unknown = JSON.parse(line);
              if (looksLikeEvent(value)) events.push(value);
            } catch {
              // a torn or foreign line: the scan skips it too
            }
          }
          next.activeUnits.push(this.newUnit(`act:${activeFile.ino}:${from}:${from + end}`, wordsOfEvents(events)));
          next.activeSize = from + end;
          this.stats.activeBytesIndexed += end;
        }
      }
    }
    this.setSession(key, next);
    this.version++;
    this.pending.push({ t: "s", s: next });
  }

  /** Units referenced by a session now (dead ones are left out of a snapshot). */
  private liveUnits(): Set<number> {
    const live = new Set<number>();
    for (const s of this.sessions.values()) {
      for (const u of s.activeUnits) live.add(u);
      for (const g of s.segments) live.add(g.unit);
    }
    return live;
  }

  private async persist(): Promise<void> {
    if (!this.files || this.pending.length === 0) return;
    const records = this.pending;
    this.pending = [];
    const rewrite = await this.files.append(records);
    if (!rewrite) return;
    const live = this.liveUnits();
    const { words, at, len, blob } = this.postings.serialize((u) => !live.has(u));
    const units = [...this.units].filter(([id]) => live.has(id));
    await this.files.writeSnapshot(
      this.ctx.root,
      { nextUnit: this.nextUnit, units, sessions: [...this.sessions.values()], words, at, len },
      blob,
    );
    this.postings = Postings.load(words, at, len, blob);
    this.units = new Map();
    this.segmentUnits = new Map();
    for (const [id, key] of units) this.setUnit(id, key);
  }

  /**
   * The units that may hold a match of the query: those holding every term of its
   * literals (`units` lists them when that is a small set, for `plan` to start from). A
   * term whose postings outweigh a byte per unit narrows too little to pay for their
   * decoding: it is left to the scan.
   */
  candidates(matcher: Matcher): Candidates {
    const terms = new Set<string>();
    for (const literal of matcher.required) for (const term of literalTerms(fold(literal))) terms.add(term);
    let candidate: Uint8Array | undefined;
    for (const term of terms) {
      const words = this.postings.containing(term);
      if (this.postings.encodedBytes(words) > this.nextUnit) continue;
      const hits = new Uint8Array(this.nextUnit);
      for (const word of words) this.postings.forEachUnit(word, (u) => (hits[u] = 1));
      if (candidate) for (let u = 0; u < candidate.length; u++) candidate[u]! &= hits[u]!;
      else candidate = hits;
    }
    const may = (u: number) => !candidate || candidate[u] === 1;
    if (!candidate) return { may };
    const units: number[] = [];
    for (let u = 0; u < candidate.length && units.length <= SELECTIVE; u++) if (candidate[u] === 1) units.push(u);
    return units.length <= SELECTIVE ? { may, units } : { may };
  }

  /** Every change of `sessions` goes through here and `deleteSession`: they keep `owners` and `drafts` in step. */
  private setSession(key: string, next: IndexedSession): void {
    this.deleteSession(key);
    this.sessions.set(key, next);
    for (const u of unitsOf(next)) {
      const keys = this.owners.get(u);
      if (keys) keys.push(key);
      else this.owners.set(u, [key]);
    }
    if (next.draft) this.drafts.add(key);
  }

  private deleteSession(key: string): boolean {
    const prev = this.sessions.get(key);
    if (!prev) return false;
    this.sessions.delete(key);
    for (const u of unitsOf(prev)) {
      const keys = this.owners.get(u);
      if (!keys) continue;
      const rest = keys.filter((k) => k !== key);
      if (rest.length > 0) this.owners.set(u, rest);
      else this.owners.delete(u);
    }
    this.drafts.delete(key);
    return true;
  }

  /**
   * The sessions of `sessions` (`refresh()`'s answer, in its order) that `keep` accepts
   * and whose units may match, lazily: a search that stops at its limit never plans the
   * rest. A selective query starts from its few candidate units' owners (and the
   * sessions with a draft) instead of walking every session.
   */
  *plan(
    sessions: readonly IndexedSession[],
    candidates: Candidates,
    keep: (s: IndexedSession) => boolean = () => true,
  ): Generator<SessionPlan> {
    const { may } = candidates;
    let order: Iterable<IndexedSession> = sessions;
    if (candidates.units && sessions === this.sorted && this.sortedVersion === this.version) {
      const keys = new Set<string>(this.drafts);
      for (const u of candidates.units) for (const key of this.owners.get(u) ?? []) keys.add(key);
      order = [...keys].map((k) => this.sessions.get(k)!).sort(newestFirst);
    }
    for (const session of order) {
      if (!keep(session)) continue;
      let segments: Set<string> | undefined;
      for (const g of session.segments) if (may(g.unit)) (segments ??= new Set()).add(g.file);
      const active = session.activeUnits.some(may);
      if (active || segments || session.draft) yield { session, active, segments: segments ?? new Set() };
    }
  }

  /** Bytes of the index on disk (snapshot + journal). */
  diskBytes(): Promise<number> {
    return this.files ? this.files.bytes() : Promise.resolve(0);
  }

  /** Waits for queued work (tests, close). */
  idle(): Promise<void> {
    return this.exclusive(async () => undefined);
  }
}
