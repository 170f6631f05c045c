export { SearchQueryError } from "./errors";
export { searchSessions, type SearchCatalog } from "./search";
export { inert, inertJson } from "./snippet";
export { SearchIndex } from "./term-index/search-index";
export { IndexFiles } from "./term-index/index-files";
export { indexPrefilter } from "./term-index/prefilter";
