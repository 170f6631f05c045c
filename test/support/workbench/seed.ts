// Stored sessions written by the real core store before VS Code starts: what the UI tests
// and the Marketplace screenshots open.
import { Sessions } from "../../../core/storage";

export interface SeededSession {
  id: string;
  title: string;
  agentId?: string;
  /** Alternating user, assistant message texts (Markdown for the assistant). */
  turns: string[];
  /** The model the assistant's messages name. */
  model?: string;
}

/** Writes each session with its messages and a user-pinned title, then flushes and closes the store. */
export async function seedSessions(root: string, seeded: SeededSession[]): Promise<void> {
  const sessions = new Sessions({ root });
  for (const { id, title, agentId, turns, model } of seeded) {
    const session = sessions.create(agentId ? { id, agentId } : { id });
    const seqs = turns.map((text, i) => {
      const content = [{ type: "text" as const, text }];
      const event =
        i % 2 === 0
          ? session.append("user/message", { content }, { surface: "append" })
          : session.append("assistant/message", model ? { content, model } : { content }, { surface: "append" });
      return event.seq;
    });
    session.append("session/title", { title, messageSeqs: seqs.slice(0, 1), source: { kind: "user" } });
    await sessions.flush(session);
  }
  await sessions.close();
}
