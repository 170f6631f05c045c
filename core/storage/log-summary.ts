import type { AssistantMessageData, RequestHeaderData, SessionEvent } from "../protocol";
import { EMPTY_TITLE, foldTitle, type TitleState } from "../session";
import type { LoadedLog } from "./open/load-log";
import type { SessionMeta } from "./meta";

/** The model an event names, if any (the latest one wins in lists). */
export function eventModel(event: SessionEvent): string | undefined {
  if (event.type === "assistant/message") return (event.data as AssistantMessageData).model;
  if (event.type === "request/header") return (event.data as RequestHeaderData).model;
  return undefined;
}

export function titleAt(log: LoadedLog): TitleState {
  let title: TitleState = log.footer?.title ? { ...EMPTY_TITLE, ...log.footer.title } : EMPTY_TITLE;
  for (const e of log.events) title = foldTitle(title, e);
  return title;
}

/**
 * Rebuilds list attributes from the log itself (meta.json missing, corrupt or stale):
 * the latest footer covers the closed prefix, Active the rest. No old segment is read.
 */
export function metaFromLog(
  log: LoadedLog,
  ids: { sessionId: string; agentId: string },
  extra: {
    timeZone: string;
    segmentBytes: number;
    forkedFrom?: SessionMeta["forkedFrom"];
    createdAt?: number;
    fallbackTime: number;
  },
): SessionMeta {
  let messageCount = log.footer?.messageCount ?? 0;
  let model = log.footer?.model;
  let updatedAt = 0;
  for (const e of log.events) {
    if (e.type === "user/message" || e.type === "assistant/message") messageCount++;
    model = eventModel(e) ?? model;
    if (e.time > updatedAt) updatedAt = e.time;
  }
  const createdAt =
    extra.createdAt ??
    log.footer?.createdAt ??
    log.latest?.events[0]?.time ??
    log.events[0]?.time ??
    extra.fallbackTime;
  const title = titleAt(log);
  const meta: SessionMeta = {
    version: 1,
    sessionId: ids.sessionId,
    agentId: ids.agentId,
    createdAt,
    updatedAt: Math.max(updatedAt, log.latest?.events.at(-1)?.time ?? 0, createdAt),
    messageCount,
    historyBytes: extra.segmentBytes + log.parsed.validEnd,
    segmentBytes: extra.segmentBytes,
    timeZone: extra.timeZone,
    lastSeq: log.events.at(-1)?.seq ?? log.baseSeq,
  };
  if (title.title !== undefined) meta.title = title.title;
  if (title.source !== undefined) meta.titleSource = title.source;
  if (model !== undefined) meta.model = model;
  if (extra.forkedFrom) meta.forkedFrom = extra.forkedFrom;
  return meta;
}
