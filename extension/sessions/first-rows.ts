import type { SessionListItem, WorkspaceRuntimeApi } from "../../core/runtime";
import { FIRST_PAGES } from "./page-sizes";
import type { RememberedRows } from "./remembered-rows";

/** Where a folder's first rows came from (the hop trace says it: bench/host/tree-scale.ts reads it). */
export type FirstRowsSource = "remembered" | "off thread" | "pass";

/**
 * The sessions a folder's tree draws before its full list, and where they came from.
 *
 * With rows remembered from the last window, only those sessions are read, each as its meta.json says now: the first
 * page's pass (one `lstat` per session, 10,000 of them at scale) stays off the first row's way. They are used when
 * every one still lists: then the store changed only in ways the full list adds (a newer session). One gone means
 * another process deleted, archived or broke it while no window watched; the pass then decides, so a first draw
 * never lacks a row that the pass would have drawn.
 *
 * Otherwise the pass, from `offThread` when it gives it (the same pass on a worker thread, started as the bundle
 * loaded: first-page-prefetch.ts), else on this thread. `offThread` is asked only when the remembered rows are not
 * used.
 */
export async function firstRows(
  runtime: Pick<WorkspaceRuntimeApi, "list">,
  remembered: RememberedRows | undefined,
  offThread?: () => Promise<SessionListItem[][]> | undefined,
): Promise<{ items: SessionListItem[]; from: FirstRowsSource }> {
  if (remembered) {
    const [live, archived] = await Promise.all([
      runtime.list({ verifyLogs: true, sessions: remembered.live }),
      runtime.list({ archived: true, verifyLogs: true, sessions: remembered.archived }),
    ]);
    if (live.length === remembered.live.length && archived.length === remembered.archived.length)
      return { items: [...live, ...archived], from: "remembered" };
  }
  const listed = await offThread?.()?.catch(() => undefined); // it failed: the pass here says why, if anything
  if (listed) return { items: listed.flat(), from: "off thread" };
  const pages = await Promise.all(FIRST_PAGES.map((filter) => runtime.list({ ...filter })));
  return { items: pages.flat(), from: "pass" };
}
