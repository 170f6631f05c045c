/** A query that cannot run (empty, a bad or unsupported regular expression): its message is for the user. */
export class SearchQueryError extends Error {
  override readonly name = "SearchQueryError";
}
