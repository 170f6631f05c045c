import { SearchHit, SearchOptions } from "../protocol/search";
import type { Session, SessionListItem } from "../session";
import type { StorageContext } from "../storage/context";
import { sessionPaths } from "../storage/layout";
import { sortByUpdated } from "../storage/list/list";
import { linkFree } from "./read-sync";
import { SearchQueryError } from "./errors";
import { createMatcher, type Matcher } from "./matcher";
import { rawTest } from "./raw-test";
import { inert, makeSnippet } from "./snippet";
import { readUnit, segmentUnits, type UnitEntry } from "./units";

/** What search reads: the store's files, its session list, and the sessions live in this process. */
export interface SearchCatalog {
  ctx: StorageContext;
  list(filter: { agentId?: string; archived: boolean }): Promise<SessionListItem[]>;
  /** Sessions live in this process (the index prefilter reads their Active always). */
  hotItems?(): SessionListItem[];
  /** A session live in this process: its Active is read from memory (it may hold unflushed events). */
  hot?(agentId: string, sessionId: string): Session | undefined;
}

/** What a hit needs of its session. */
export type SearchItem = Pick<SessionListItem, "agentId" | "sessionId" | "archived" | "title" | "updatedAt">;

/** A session to read and the parts of it that may hold a match (undefined: all of them). */
export interface PlannedSession {
  item: SearchItem;
  active?: boolean;
  segments?: ReadonlySet<string>;
}

/** Narrows what is read (the index): which sessions, newest first, and which of their units; undefined: read everything. */
export type SearchPrefilter = (
  options: SearchOptions,
  matcher: Matcher,
) => Promise<Iterable<PlannedSession> | undefined>;

export const DEFAULT_LIMIT = 200;
/** Matches counted per field (the snippet shows those near the first). */
const MAX_COUNTED = 1000;

/** Validates and compiles the query: throws `SearchQueryError` at once, before anything is read. */
export function prepareSearch(options: SearchOptions): { options: SearchOptions; matcher: Matcher } {
  const { signal, ...rest } = options;
  const parsed = SearchOptions.safeParse(rest);
  if (!parsed.success)
    throw new SearchQueryError(
      `bad search options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ")}`,
    );
  const checked: SearchOptions = signal ? { ...parsed.data, signal } : parsed.data;
  return { options: checked, matcher: createMatcher(checked) };
}

/**
 * One search over every session of a folder (issue 23): newest session first, newest
 * message first within it, streamed. Every hit comes from the log as it is now (the
 * prefilter only skips what cannot match). Holds one unit of one session at a time.
 */
export function searchSessions(
  catalog: SearchCatalog,
  options: SearchOptions,
  prefilter?: SearchPrefilter,
): AsyncIterable<SearchHit> {
  const prepared = prepareSearch(options);
  return run(catalog, prepared.options, prepared.matcher, prefilter);
}

async function* run(
  catalog: SearchCatalog,
  options: SearchOptions,
  matcher: Matcher,
  prefilter: SearchPrefilter | undefined,
): AsyncGenerator<SearchHit> {
  const { signal } = options;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const perSession = options.perSession ?? Infinity;
  const reasoning = options.reasoning === true;
  const raw = rawTest(matcher);
  const planned =
    (prefilter && (await prefilter(options, matcher))) ??
    (await listed(catalog, options)).map((item): PlannedSession => ({ item }));
  let total = 0;
  const checked = new Map<string, boolean>();
  let visited = 0;
  for (const { item, active: readActive, segments: only } of planned) {
    if (signal?.aborted) return;
    // Reads below are synchronous (cheaper here than thread-pool round trips): let the event loop run between sessions.
    if (++visited % 32 === 0) await new Promise((resolve) => setImmediate(resolve));
    const paths = sessionPaths(catalog.ctx.root, item.agentId, item.sessionId, item.archived ? "archived" : "sessions");
    // A linked session folder is never read (the store refuses it too).
    const files = linkFree(catalog.ctx.root, paths, checked);
    if (!files) continue;
    const hot = item.archived ? undefined : catalog.hot?.(item.agentId, item.sessionId);
    const segments = segmentUnits(paths);
    const baseSeq = segments[0]?.kind === "segment" ? segments[0].name.last : 0;
    // A hot session's Active is in memory (with what is not flushed yet): always read. With a
    // draft, Active is decoded whatever its bytes: its last event says whether the draft still counts.
    const active =
      readActive === false && !hot && !files.draft
        ? []
        : await readUnit(catalog.ctx, paths, { kind: "active" }, baseSeq, reasoning, {
            hot,
            raw: files.draft ? undefined : raw,
          });
    const lastSeq = Math.max(baseSeq, active[0]?.seq ?? 0, hot?.lastSeq ?? 0);
    const draft = files.draft ? await readUnit(catalog.ctx, paths, { kind: "draft", lastSeq }, baseSeq, reasoning) : [];
    let inSession = 0;
    const emit = function* (entries: UnitEntry[]): Generator<SearchHit, boolean> {
      for (const entry of entries) {
        for (const field of entry.fields) {
          if (signal?.aborted) return false;
          const matches = matcher.find(field.text, MAX_COUNTED);
          if (matches.length === 0) continue;
          const { snippet, ranges } = makeSnippet(field.text, matches);
          const hit: SearchHit = {
            agentId: item.agentId,
            sessionId: item.sessionId,
            archived: item.archived,
            seq: entry.seq,
            kind: field.kind,
            part: field.part,
            time: entry.time,
            snippet,
            ranges,
            matches: matches.length,
            location: entry.location,
            inContext: entry.location === "context" || entry.location === "draft",
          };
          if (item.title !== undefined) hit.title = inert(item.title);
          if (entry.beforeSequence !== undefined) hit.beforeSequence = entry.beforeSequence;
          yield hit;
          total++;
          inSession++;
          if (total >= limit || inSession >= perSession) return false;
        }
      }
      return true;
    };
    let more = yield* emit(draft);
    if (more) more = yield* emit(active);
    for (const unit of segments) {
      if (!more || total >= limit || signal?.aborted) break;
      if (unit.kind !== "segment" || (only && !only.has(unit.name.file))) continue;
      more = yield* emit(await readUnit(catalog.ctx, paths, unit, baseSeq, reasoning, { raw }));
    }
    if (total >= limit) return;
  }
}

/** Whether a session is in the query's scope (agent, area, one session). */
export function inScope(options: SearchOptions, agentId: string, sessionId: string, archived: boolean): boolean {
  if (options.session) return options.session.agentId === agentId && options.session.sessionId === sessionId;
  if (options.agentId !== undefined && options.agentId !== agentId) return false;
  const area = options.area ?? "all";
  return area === "all" || (area === "archived") === archived;
}

async function listed(catalog: SearchCatalog, options: SearchOptions): Promise<SessionListItem[]> {
  if (options.session) {
    const { agentId, sessionId } = options.session;
    for (const archived of [false, true]) {
      const found = (await catalog.list({ agentId, archived })).find((i) => i.sessionId === sessionId);
      if (found) return [found];
    }
    return [];
  }
  const area = options.area ?? "all";
  const filter = options.agentId !== undefined ? { agentId: options.agentId } : {};
  const items: SessionListItem[] = [];
  if (area !== "archived") items.push(...(await catalog.list({ ...filter, archived: false })));
  if (area !== "sessions") items.push(...(await catalog.list({ ...filter, archived: true })));
  // Lists leave damaged folders (no usable log) out: nothing here to skip.
  return sortByUpdated(items);
}
