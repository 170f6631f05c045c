/** The session does not exist (in this agent's sessions or archive). */
export class SessionNotFoundError extends Error {
  override readonly name = "SessionNotFoundError";
}
