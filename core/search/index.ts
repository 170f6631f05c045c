export { SearchQueryError } from "./errors";
export { searchSessions, prepareSearch, DEFAULT_LIMIT, type SearchCatalog, type SearchPrefilter } from "./search";
export { createMatcher, smartCase, type Matcher } from "./matcher";
export { inert, inertJson } from "./snippet";
export { SearchIndex, type IndexedSession } from "./term-index/search-index";
export { IndexFiles } from "./term-index/index-files";
export { indexPrefilter } from "./term-index/prefilter";
