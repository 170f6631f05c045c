/** An event was refused before it entered the log; the log and Surface are unchanged. */
export class SessionEventError extends Error {
  override readonly name = "SessionEventError";
}

/** The session can be read but not appended to (another writer, or damaged storage). */
export class ReadOnlySessionError extends Error {
  override readonly name = "ReadOnlySessionError";
}
