import type { SearchHit, SearchOptions } from "../protocol/search";
import { indexPrefilter, searchSessions, type SearchCatalog, type SearchIndex } from "../search";
import type { SessionPersistence } from "../session";
import { createStorageContext } from "../storage/context";
import { JsonlSessionPersistence } from "../storage/jsonl-persistence";
import type { Sessions } from "../storage/sessions";
import { openSearchIndex } from "./search";

/** How old the index's last check of every session folder may be before a search checks them all again. */
const SEARCH_FULL_CHECK_MS = 2_000;

/** A folder's session search: the stored and hot sessions, through the term index when the host gave it a folder. */
export class SessionSearch {
  /** Opened at the first search when the host gave an index directory. */
  private searchIndex: SearchIndex | undefined;

  constructor(
    private readonly sessions: Sessions<SessionPersistence>,
    private readonly root: string,
    private readonly indexDir: string | undefined,
  ) {}

  search(options: SearchOptions): AsyncIterable<SearchHit> {
    const catalog = this.searchCatalog();
    if (!this.searchIndex && this.indexDir !== undefined) {
      const index = openSearchIndex(catalog.ctx, this.indexDir);
      // This runtime's own writes are reported as they happen; other processes' at the next full check.
      this.sessions.onChange((change) => index.changed(change.agentId, change.sessionId));
      this.searchIndex = index;
    }
    return searchSessions(
      catalog,
      options,
      this.searchIndex && indexPrefilter(this.searchIndex, catalog.hotItems, SEARCH_FULL_CHECK_MS),
    );
  }

  private searchCatalog(): SearchCatalog {
    const { persistence, store } = this.sessions;
    // Search reads the JSONL layout (another backend's files are not searched).
    const ctx =
      persistence instanceof JsonlSessionPersistence ? persistence.ctx : createStorageContext({ root: this.root });
    return {
      ctx,
      list: (filter) => this.sessions.list(filter),
      hotItems: () => store.list().map((session) => persistence.describe(session)),
      hot: (agentId, sessionId) => store.get(sessionId, agentId),
    };
  }

  /** Waits for the index's pending writes (closing). */
  async idle(): Promise<void> {
    await this.searchIndex?.idle();
  }
}
