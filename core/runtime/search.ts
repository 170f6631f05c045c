import type { SearchHit, SearchOptions } from "../protocol/search";
import { searchSessions } from "../search";
import { createStorageContext } from "../storage/context";
import { listStored } from "../storage/list";

/**
 * Search for a host with no runtime (the CLI): the folder's stored sessions, read from
 * disk. A `WorkspaceRuntime` answers `search()` the same way, plus its live sessions.
 * Imports neither the agent nor the provider SDKs.
 */
export function searchWorkspace(folder: { root: string; searchIndexDir?: string }, options: SearchOptions): AsyncIterable<SearchHit> {
  const ctx = createStorageContext({ root: folder.root });
  return searchSessions({ ctx, list: (filter) => listStored(ctx, filter) }, options);
}
