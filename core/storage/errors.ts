/** The session does not exist (in this agent's sessions or archive). */
export class SessionNotFoundError extends Error {
  override readonly name = "SessionNotFoundError";
}

/**
 * The session folder cannot be used at all (a symbolic link in it, its log is gone, a
 * file the log needs is not a file). The message names the path; nothing was changed.
 */
export class SessionRefusedError extends Error {
  override readonly name = "SessionRefusedError";
}
