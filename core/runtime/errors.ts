/** A runtime operation that cannot be done now (unknown agent, read-only or running session, no model). */
export class RuntimeError extends Error {
  override readonly name: string = "RuntimeError";
}

/** The workspace is not trusted: nothing runs (no model call, edit or command). */
export class RestrictedModeError extends RuntimeError {
  override readonly name = "RestrictedModeError";
  constructor(readonly reason: string) {
    super(`Nothing runs in Restricted Mode: ${reason.replace(/[.\s]+$/, "")}. Trust the workspace to run the agent.`);
  }
}
