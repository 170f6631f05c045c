import { SessionNotFoundError } from "../../core/runtime";

/** An error the RPC layer reports with its code. */
export class ChatError extends Error {
  constructor(
    readonly code: "invalid" | "not-found" | "read-only" | "failed",
    message: string,
  ) {
    super(message);
  }
}

/** What the chat says of a session that no longer exists: never its id or the store's message. */
export const SESSION_GONE =
  "This session was deleted. Start a new session, or open another one from the Sessions view.";

/** A store error saying the session does not exist, as the chat says it. */
export function gone(error: unknown): ChatError | undefined {
  return error instanceof SessionNotFoundError ? new ChatError("not-found", SESSION_GONE) : undefined;
}
