import type { SessionRef, SessionSearchHit } from "../../core/protocol";
import type { WorkspaceRuntimeApi } from "../../core/runtime/types";

/** Hits the find bar lists for one session; more are reported, not sent. */
export const SESSION_HIT_LIMIT = 200;

/**
 * The find bar's "search this whole session": the core query limited to one session,
 * every segment included, reduced to what the view shows. A bad query throws the core's
 * SearchQueryError, whose message the view shows as is.
 */
export async function searchOneSession(
  runtime: Pick<WorkspaceRuntimeApi, "search">,
  ref: SessionRef,
  query: string,
  signal?: AbortSignal,
): Promise<{ hits: SessionSearchHit[]; more: boolean }> {
  const hits: SessionSearchHit[] = [];
  let more = false;
  const found = runtime.search({
    query,
    session: { agentId: ref.agentId, sessionId: ref.sessionId },
    limit: SESSION_HIT_LIMIT + 1,
    ...(signal ? { signal } : {}),
  });
  for await (const hit of found) {
    if (hits.length === SESSION_HIT_LIMIT) {
      more = true;
      break;
    }
    hits.push({
      seq: hit.seq,
      kind: hit.kind,
      snippet: hit.snippet,
      ranges: hit.ranges,
      time: hit.time,
      location: hit.location,
    });
  }
  // The log's order is the reader's: oldest first, as the conversation reads.
  hits.sort((a, b) => a.seq - b.seq);
  return { hits, more };
}
