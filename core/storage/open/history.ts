import type { HistoryPage, LocalSessionRef, Session } from "../../session";
import { SessionNotFoundError } from "../errors";
import type { HotSessions } from "../hot";
import { listSegments, readSegment } from "../segments-dir";
import { loadLog } from "./load-log";
import { findDir } from "./open";

/**
 * One page of a session's history: the newest page (memory when hot, else the stored
 * log), or with `beforeSequence` the one complete segment just before it.
 */
export async function historyPage(
  hot: HotSessions,
  ref: LocalSessionRef,
  options: { beforeSequence?: number },
  session?: Session,
): Promise<HistoryPage> {
  const { ctx } = hot;
  const before = options.beforeSequence;
  if (before === undefined && session) {
    const events = [...session.events()];
    const page: HistoryPage = {
      events,
      firstSeq: events[0]?.seq ?? session.baseSeq + 1,
      lastSeq: session.lastSeq,
      hasOlder: session.baseSeq > 0,
    };
    if (session.summary) page.summary = session.summary.text;
    return page;
  }
  const paths = session ? hot.entries.get(session)?.paths : await findDir(ctx, ref);
  if (!paths) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
  if (before === undefined) {
    const log = await loadLog(ctx, paths);
    const page: HistoryPage = {
      events: log.events,
      firstSeq: log.events[0]?.seq ?? log.baseSeq + 1,
      lastSeq: log.events.at(-1)?.seq ?? log.baseSeq,
      hasOlder: log.baseSeq > 0,
    };
    if (log.footer) page.summary = log.footer.text;
    return page;
  }
  // The one complete segment just before `before`: one segment parsed per page.
  const segments = await listSegments(ctx, paths);
  let target;
  for (const s of segments) if (s.first < before) target = s;
  if (!target) return { events: [], firstSeq: before, lastSeq: before - 1, hasOlder: false };
  const segment = await readSegment(ctx, paths, target);
  return {
    events: segment.events,
    firstSeq: target.first,
    lastSeq: target.last,
    summary: segment.footer.text,
    hasOlder: target.first > 1,
  };
}
