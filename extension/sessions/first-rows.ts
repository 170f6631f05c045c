import type { SessionListItem, WorkspaceRuntimeApi } from "../../core/runtime";
import type { RememberedRows } from "./remembered-rows";

/**
 * The sessions a folder's tree draws before its full list, and whether they are the remembered ones.
 *
 * With rows remembered from the last window, only those sessions are read, each as its meta.json says now: the first
 * page's pass (one `lstat` per session, 10,000 of them at scale) stays off the first row's way. They are used when
 * every one still lists: then the store changed only in ways the full list adds (a newer session). One gone means
 * another process deleted, archived or broke it while no window watched; the pass then decides, so a first draw
 * never lacks a row that the pass would have drawn.
 */
export async function firstRows(
  runtime: Pick<WorkspaceRuntimeApi, "list">,
  remembered: RememberedRows | undefined,
  limits: { live: number; archived: number },
): Promise<{ items: SessionListItem[]; remembered: boolean }> {
  if (remembered) {
    const [live, archived] = await Promise.all([
      runtime.list({ verifyLogs: true, sessions: remembered.live }),
      runtime.list({ archived: true, verifyLogs: true, sessions: remembered.archived }),
    ]);
    if (live.length === remembered.live.length && archived.length === remembered.archived.length)
      return { items: [...live, ...archived], remembered: true };
  }
  const [live, archived] = await Promise.all([
    runtime.list({ verifyLogs: true, limit: limits.live }),
    runtime.list({ archived: true, verifyLogs: true, limit: limits.archived }),
  ]);
  return { items: [...live, ...archived], remembered: false };
}
