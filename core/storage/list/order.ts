import type { SessionListItem } from "../../session";

const compareIds = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Newest first, then by session id, then by agent id: a total order (two agents may hold
 * the same session id at the same time), so every list and the tree agree on it.
 */
export function byUpdated(
  a: Pick<SessionListItem, "updatedAt" | "sessionId" | "agentId">,
  b: Pick<SessionListItem, "updatedAt" | "sessionId" | "agentId">,
): number {
  return b.updatedAt - a.updatedAt || compareIds(a.sessionId, b.sessionId) || compareIds(a.agentId, b.agentId);
}

export function sortByUpdated(items: SessionListItem[]): SessionListItem[] {
  return items.sort(byUpdated);
}

/** The first `limit` of each agent in `items` (sorted by byUpdated), in their order. */
export function firstOfEachAgent(items: readonly SessionListItem[], limit: number): SessionListItem[] {
  const taken = new Map<string, number>();
  return items.filter((item) => {
    const n = taken.get(item.agentId) ?? 0;
    taken.set(item.agentId, n + 1);
    return n < limit;
  });
}
