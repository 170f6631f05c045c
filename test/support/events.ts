import type { Session } from "../../core/session";

/** Appends a user message on the Surface and returns its seq. */
export function user(session: Session, text: string): number {
  return session.append("user/message", { content: [{ type: "text", text }] }, { surface: "append" }).seq;
}

/** Appends an assistant message on the Surface and returns its seq. */
export function assistant(session: Session, text: string): number {
  return session.append("assistant/message", { content: [{ type: "text", text }] }, { surface: "append" }).seq;
}

/** Appends a log-only event (not on the Surface) and returns its seq. */
export function logOnly(session: Session): number {
  return session.append("step/start", {}).seq;
}
