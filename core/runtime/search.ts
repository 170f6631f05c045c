import type { SearchHit, SearchOptions } from "../protocol/search";
import { IndexFiles, indexPrefilter, SearchIndex, searchSessions } from "../search";
import { createStorageContext, type StorageContext } from "../storage/context";
import { listStored } from "../storage/list/list";

export { SearchQueryError } from "../search/errors";
export { inert, inertJson } from "../search/snippet";

/**
 * Search for a host with no runtime (the CLI): the folder's stored sessions, read from
 * disk. A `WorkspaceRuntime` answers `search()` the same way, plus its live sessions.
 * Imports neither the agent nor the provider SDKs.
 */
export function searchWorkspace(
  folder: { root: string; searchIndexDir?: string },
  options: SearchOptions,
): AsyncIterable<SearchHit> {
  const ctx = createStorageContext({ root: folder.root });
  const index = folder.searchIndexDir !== undefined ? openSearchIndex(ctx, folder.searchIndexDir) : undefined;
  return searchSessions({ ctx, list: (filter) => listStored(ctx, filter) }, options, index && indexPrefilter(index));
}

/** A folder's index under a host's index directory (one sub-directory per workspace root). */
export function openSearchIndex(ctx: StorageContext, searchIndexDir: string): SearchIndex {
  return new SearchIndex(ctx, new IndexFiles(SearchIndex.dirFor(searchIndexDir, ctx.root)));
}
