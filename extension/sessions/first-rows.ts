import type { SessionListItem, WorkspaceRuntimeApi } from "../../core/runtime";
import type { PageFilter } from "../../core/runtime/first-pages";
import type { RememberedRows } from "./remembered-rows";

/** Where a folder's first rows came from (the hop trace says it: bench/host/tree-scale.ts and the UI tests read it). */
export type FirstRowsSource = "remembered" | "off thread" | "pass";

/** The first pages listed on a worker thread, or undefined when they are not worth one (off-thread-pages.ts). */
export type OffThreadPages = (filters: readonly PageFilter[]) => Promise<SessionListItem[][]> | undefined;

/**
 * The sessions a folder's tree draws before its full list, and where they came from.
 *
 * With rows remembered from the last window, only those sessions are read, each as its meta.json says now: the first
 * page's pass (one `lstat` per session, 10,000 of them at scale) stays off the first row's way. They are used when
 * every one still lists: then the store changed only in ways the full list adds (a newer session). One gone means
 * another process deleted, archived or broke it while no window watched; the pass then decides, so a first draw
 * never lacks a row that the pass would have drawn.
 *
 * Otherwise the pass: on a worker thread when `offThread` starts one (a workspace's first window at scale: the
 * `lstat`s then neither wait behind nor hold up the extension host's start-up), else, or when the worker fails, on
 * this thread. Both run the same `firstPage` of the store.
 */
export async function firstRows(
  runtime: Pick<WorkspaceRuntimeApi, "list">,
  remembered: RememberedRows | undefined,
  limits: { live: number; archived: number },
  offThread?: OffThreadPages,
): Promise<{ items: SessionListItem[]; from: FirstRowsSource }> {
  if (remembered) {
    const [live, archived] = await Promise.all([
      runtime.list({ verifyLogs: true, sessions: remembered.live }),
      runtime.list({ archived: true, verifyLogs: true, sessions: remembered.archived }),
    ]);
    if (live.length === remembered.live.length && archived.length === remembered.archived.length)
      return { items: [...live, ...archived], from: "remembered" };
  }
  const filters = [
    { verifyLogs: true, limit: limits.live },
    { archived: true, verifyLogs: true, limit: limits.archived },
  ];
  // A worker that failed leaves the pass to this thread, which says why if anything is wrong with the store.
  const listed = await offThread?.(filters)?.catch(() => undefined);
  if (listed) return { items: listed.flat(), from: "off thread" };
  const pages = await Promise.all(filters.map((filter) => runtime.list(filter)));
  return { items: pages.flat(), from: "pass" };
}
