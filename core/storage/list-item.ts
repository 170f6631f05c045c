import type { SessionListItem } from "../session";
import { localTimeZone, type SessionMeta } from "./meta";

export function itemFromMeta(meta: SessionMeta, archived: boolean): SessionListItem {
  const item: SessionListItem = {
    sessionId: meta.sessionId,
    agentId: meta.agentId,
    title: meta.title,
    titleSource: meta.titleSource,
    model: meta.model,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
    messageCount: meta.messageCount,
    historyBytes: meta.historyBytes,
    timeZone: meta.timeZone,
    archived,
    hot: false,
  };
  if (meta.forkedFrom) item.forkedFrom = meta.forkedFrom;
  return item;
}

/** A list item for a folder that cannot be listed as the session it claims (the tree shows it as damaged). */
export function damagedItem(agentId: string, sessionId: string, archived: boolean, damaged: string, meta?: SessionMeta): SessionListItem {
  const item: SessionListItem = meta
    ? itemFromMeta(meta, archived)
    : { sessionId, agentId, title: undefined, titleSource: undefined, model: undefined, createdAt: 0, updatedAt: 0, messageCount: 0, historyBytes: 0, timeZone: localTimeZone(), archived, hot: false };
  item.damaged = damaged;
  return item;
}
