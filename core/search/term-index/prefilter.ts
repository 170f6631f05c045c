import type { SessionListItem } from "../../session";
import { inScope, type PlannedSession, type SearchPrefilter } from "../search";
import type { SearchIndex } from "./search-index";

const keyOf = (agentId: string, sessionId: string) => `${agentId}\u0000${sessionId}`;

/**
 * The index as search's prefilter: refresh it (only what changed on disk is read), then
 * read only the sessions and units that hold every term of the query. Sessions live in
 * this process always have their Active read from memory (it may hold unflushed events).
 */
export function indexPrefilter(index: SearchIndex, hotItems?: () => SessionListItem[], maxAgeMs = 0): SearchPrefilter {
  return async (options, matcher) => {
    const sessions = (await index.refresh({ maxAgeMs })).filter((s) => inScope(options, s.agentId, s.sessionId, s.area === "archived"));
    const planned = new Map<string, PlannedSession>();
    for (const plan of index.plan(sessions, matcher)) {
      const { session } = plan;
      planned.set(keyOf(session.agentId, session.sessionId), {
        item: { agentId: session.agentId, sessionId: session.sessionId, archived: session.area === "archived", title: session.title, updatedAt: session.updatedAt },
        active: plan.active,
        segments: plan.segments,
      });
    }
    for (const hot of hotItems?.() ?? []) {
      if (hot.archived || !inScope(options, hot.agentId, hot.sessionId, false)) continue;
      const key = keyOf(hot.agentId, hot.sessionId);
      const found = planned.get(key);
      planned.set(key, { item: { agentId: hot.agentId, sessionId: hot.sessionId, archived: false, title: hot.title, updatedAt: hot.updatedAt }, active: true, segments: found?.segments ?? new Set() });
    }
    return [...planned.values()].sort((a, b) => b.item.updatedAt - a.item.updatedAt || (a.item.sessionId < b.item.sessionId ? -1 : 1));
  };
}
