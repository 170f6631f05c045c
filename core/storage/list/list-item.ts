import type { SessionListItem } from "../../session";
import type { SessionMeta } from "../meta";

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
