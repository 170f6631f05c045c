import { sessionKey } from "../../protocol/refs";
import type { SessionListItem } from "../../session";
import { inScope, type PlannedSession, type SearchPrefilter } from "../search";
import type { SearchOptions } from "../../protocol/search";
import type { Matcher } from "../matcher";
import type { IndexedSession, RefreshScope, SearchIndex } from "./search-index";

const keyOf = (agentId: string, sessionId: string) => sessionKey({ agentId, sessionId });

/**
 * The index as search's prefilter: refresh it (only what changed on disk is read), then
 * read only the sessions and units that hold every term of the query. Sessions live in
 * this process always have their Active read from memory (it may hold unflushed events).
 */
export function indexPrefilter(index: SearchIndex, hotItems?: () => SessionListItem[], maxAgeMs = 0): SearchPrefilter {
  return async (options, matcher) => {
    if (!(await index.ready())) {
      // Nothing on disk yet: this search scans the logs (first hits in milliseconds) while the index is built.
      void index.refresh().catch(() => undefined);
      return undefined;
    }
    // Only the folders the query can read are checked (an agent's, the live area's, one session's).
    const scope: RefreshScope = options.session
      ? { session: options.session }
      : {
          ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
          ...((options.area ?? "all") === "sessions" ? { liveOnly: true } : {}),
        };
    const sessions = await index.refresh({ maxAgeMs, scope });
    const hot = new Map<string, SessionListItem>();
    for (const item of hotItems?.() ?? [])
      if (!item.archived && inScope(options, item.agentId, item.sessionId, false))
        hot.set(keyOf(item.agentId, item.sessionId), item);
    return merged(index, sessions, hot, options, matcher);
  };
}

/**
 * The index's plan (lazy, newest first) merged by `updatedAt` with the live sessions:
 * a live session is always read (its Active from memory), with the segments the index
 * says may match.
 */
function* merged(
  index: SearchIndex,
  sessions: readonly IndexedSession[],
  hot: Map<string, SessionListItem>,
  options: SearchOptions,
  matcher: Matcher,
): Generator<PlannedSession> {
  const segmentsOf = new Map<string, ReadonlySet<string>>();
  const candidates = index.candidates(matcher);
  const { may } = candidates;
  const live = [...hot.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  let next = 0;
  const liveUntil = function* (updatedAt: number): Generator<PlannedSession> {
    while (next < live.length && live[next]!.updatedAt >= updatedAt) {
      const item = live[next++]!;
      yield {
        item: {
          agentId: item.agentId,
          sessionId: item.sessionId,
          archived: false,
          title: item.title,
          updatedAt: item.updatedAt,
        },
        active: true,
        segments: segmentsOf.get(keyOf(item.agentId, item.sessionId)) ?? new Set(),
      };
    }
  };
  // A live session's segments are those of its indexed folder that may match.
  if (hot.size > 0)
    for (const s of sessions) {
      const key = keyOf(s.agentId, s.sessionId);
      if (hot.has(key)) segmentsOf.set(key, new Set(s.segments.filter((g) => may(g.unit)).map((g) => g.file)));
    }
  const keep = (s: IndexedSession) =>
    !hot.has(keyOf(s.agentId, s.sessionId)) && inScope(options, s.agentId, s.sessionId, s.area === "archived");
  for (const plan of index.plan(sessions, candidates, keep)) {
    const { session } = plan;
    yield* liveUntil(session.updatedAt);
    yield {
      item: {
        agentId: session.agentId,
        sessionId: session.sessionId,
        archived: session.area === "archived",
        title: session.title,
        updatedAt: session.updatedAt,
      },
      active: plan.active,
      segments: plan.segments,
    };
  }
  yield* liveUntil(-Infinity);
}
