import { SearchHit, SearchOptions } from "../protocol/search";
import type { Session, SessionListItem } from "../session";
import type { StorageContext } from "../storage/context";
import { sessionPaths } from "../storage/layout";
import { sortByUpdated } from "../storage/list";
import { assertNoLinks } from "../storage/no-links";
import { SearchQueryError } from "./errors";
import { createMatcher, type Matcher } from "./matcher";
import { makeSnippet } from "./snippet";
import { readUnit, segmentUnits, type Unit, type UnitEntry } from "./units";

/** What search reads: the store's files, its session list, and the sessions live in this process. */
export interface SearchCatalog {
  ctx: StorageContext;
  list(filter: { agentId?: string; archived: boolean }): Promise<SessionListItem[]>;
  /** A session live in this process: its Active is read from memory (it may hold unflushed events). */
  hot?(agentId: string, sessionId: string): Session | undefined;
}

/** Narrows what is read: the index answers which sessions and units may hold a match. */
export interface SearchPrefilter {
  /** The sessions worth reading, newest first; undefined: every session of the list. */
  sessions?(items: SessionListItem[], matcher: Matcher): Promise<SessionListItem[]>;
  /** Whether a closed segment may hold a match (called for each one before it is read). */
  segment?(item: SessionListItem, unit: Unit & { kind: "segment" }, matcher: Matcher): boolean;
}

export const DEFAULT_LIMIT = 200;
/** Matches counted per field (the snippet shows those near the first). */
const MAX_COUNTED = 1000;

/** Validates and compiles the query: throws `SearchQueryError` at once, before anything is read. */
export function prepareSearch(options: SearchOptions): { options: SearchOptions; matcher: Matcher } {
  const { signal, ...rest } = options;
  const parsed = SearchOptions.safeParse(rest);
  if (!parsed.success) throw new SearchQueryError(`bad search options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ")}`);
  const checked: SearchOptions = signal ? { ...parsed.data, signal } : parsed.data;
  return { options: checked, matcher: createMatcher(checked) };
}

/**
 * One search over every session of a folder (issue 23): newest session first, newest
 * message first within it, streamed. Every hit comes from the log as it is now (the
 * prefilter only skips what cannot match). Holds one unit of one session at a time.
 */
export function searchSessions(catalog: SearchCatalog, options: SearchOptions, prefilter: SearchPrefilter = {}): AsyncIterable<SearchHit> {
  const prepared = prepareSearch(options);
  return run(catalog, prepared.options, prepared.matcher, prefilter);
}

async function* run(catalog: SearchCatalog, options: SearchOptions, matcher: Matcher, prefilter: SearchPrefilter): AsyncGenerator<SearchHit> {
  const { signal } = options;
  const limit = options.limit ?? DEFAULT_LIMIT;
  const perSession = options.perSession ?? Infinity;
  const reasoning = options.reasoning === true;
  let items = await listed(catalog, options);
  if (prefilter.sessions) items = await prefilter.sessions(items, matcher);
  let total = 0;
  for (const item of items) {
    if (signal?.aborted) return;
    const paths = sessionPaths(catalog.ctx.root, item.agentId, item.sessionId, item.archived ? "archived" : "sessions");
    try {
      await assertNoLinks(catalog.ctx, paths);
    } catch {
      continue; // a linked session folder is never read (the store refuses it too)
    }
    const hot = item.archived ? undefined : catalog.hot?.(item.agentId, item.sessionId);
    const segments = await segmentUnits(catalog.ctx, paths);
    const baseSeq = segments[0]?.kind === "segment" ? segments[0].name.last : 0;
    const active = await readUnit(catalog.ctx, paths, { kind: "active" }, baseSeq, reasoning, hot);
    const lastSeq = Math.max(baseSeq, active[0]?.seq ?? 0, hot?.lastSeq ?? 0);
    const draft = await readUnit(catalog.ctx, paths, { kind: "draft", lastSeq }, baseSeq, reasoning);
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
          if (item.title !== undefined) hit.title = item.title;
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
      if (unit.kind !== "segment" || (prefilter.segment && !prefilter.segment(item, unit, matcher))) continue;
      more = yield* emit(await readUnit(catalog.ctx, paths, unit, baseSeq, reasoning));
    }
    if (total >= limit) return;
  }
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
  // A damaged item (no usable log) has nothing to search.
  return sortByUpdated(items.filter((i) => i.damaged === undefined));
}
