import type { Session } from "../../../core/session";
import type { Sessions } from "../../../core/storage";

/**
 * Writes a realistic session through the store's own API: turns of user (~200 B),
 * assistant (1–4 KB, with a tool call) and tool result (2–20 KB), closed into a
 * segment every ~130 events. `scale` shrinks payloads for fast tests.
 */
export async function generateSession(
  sessions: Sessions,
  session: Session,
  events: number,
  options: { scale?: number; segmentEvery?: number; text?: (bytes: number) => string } = {},
) {
  const scale = options.scale ?? 1;
  const every = options.segmentEvery ?? 130;
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  // `text`: a vocabulary of one's own (search benchmarks need more than lorem ipsum).
  const text = (bytes: number) =>
    options.text
      ? options.text(Math.max(1, Math.round(bytes * scale)))
      : "lorem ipsum dolor sit amet ".repeat(Math.max(1, Math.round((bytes * scale) / 27)));
  let turn = 0;
  let sinceClose = 0;
  while (session.lastSeq < events) {
    turn++;
    const start = session.lastSeq;
    session.append("turn/start", { turn });
    session.append("user/message", { content: [{ type: "text", text: text(200) }] }, { surface: "append" });
    const id = `call-${turn}`;
    session.append(
      "assistant/message",
      {
        content: [
          { type: "text", text: text(1000 + rand() * 3000) },
          { type: "tool-call", id, name: "read", arguments: { path: `src/${turn}.ts` } },
        ],
        model: "gpt-test",
        usage: { inputTokens: 1000, outputTokens: 200 },
      },
      { surface: "append" },
    );
    session.append(
      "tool/result",
      { toolCallId: id, toolName: "read", content: [{ type: "text", text: text(2000 + rand() * 18000) }] },
      { surface: "append" },
    );
    session.append(
      "assistant/message",
      { content: [{ type: "text", text: text(1000 + rand() * 3000) }], model: "gpt-test" },
      { surface: "append" },
    );
    session.append("turn/end", { reason: "completed" });
    sinceClose += session.lastSeq - start;
    if (sinceClose >= every) {
      await sessions.flush(session);
      await sessions.closePrefix(session, session.lastSeq, `summary through turn ${turn}`);
      sinceClose = 0;
    }
  }
  await sessions.flush(session);
}
