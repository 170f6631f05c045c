// The stores the tree-scale bench opens, written through the core store itself: a few
// sessions, or thousands spread over the past months plus one long session.
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mock } from "node:test";
import { Sessions } from "../../core/storage";
import { generateSession } from "../../test/support/storage/generate";

const DAY = 86_400_000;
/** The span the many sessions' last activity is spread over: Today to about 13 months back. */
const SPAN_MS = 400 * DAY;

/**
 * `count` sessions of agent "code" (a question, an answer, a title), the newest now and
 * the oldest SPAN_MS ago; with `longEvents`, one more session of that many events (closed
 * segments and all, as generateSession writes them) active now. A session's times are the
 * clock's, so Date alone is mocked while each one is written.
 */
export async function writeStore(root: string, count: number, longEvents = 0): Promise<void> {
  mkdirSync(root, { recursive: true });
  const sessions = new Sessions({ root, batchWindowMs: 60_000 });
  const now = Date.now();
  const step = count > 1 ? SPAN_MS / (count - 1) : 0;
  mock.timers.enable({ apis: ["Date"], now: now - SPAN_MS - DAY });
  try {
    // Oldest first: the mocked clock only moves forward.
    for (let i = count - 1; i >= 0; i--) {
      mock.timers.setTime(Math.round(now - i * step));
      const session = sessions.create({ id: `session-${String(i).padStart(5, "0")}`, agentId: "code" });
      const user = session.append(
        "user/message",
        { content: [{ type: "text", text: `How does part ${i} of the build work?` }] },
        { surface: "append" },
      );
      session.append(
        "assistant/message",
        { content: [{ type: "text", text: `Part ${i} bundles with esbuild. `.repeat(8) }], model: "gpt-test" },
        { surface: "append" },
      );
      session.append("session/title", {
        title: `Build question ${i}`,
        messageSeqs: [user.seq],
        source: { kind: "user" },
      });
      await sessions.flush(session);
      await sessions.store.dispose(session);
      await sessions.persistence.release(session);
    }
  } finally {
    mock.timers.reset();
  }
  if (longEvents > 0) {
    const long = sessions.create({ id: "session-long", agentId: "code" });
    await generateSession(sessions, long, longEvents, { scale: 0.1 });
    long.append("session/title", { title: "The long session", messageSeqs: [2], source: { kind: "user" } });
    await sessions.flush(long);
  }
  await sessions.close();
  stampMetaTimes(root);
}

/**
 * Sets each meta.json's mtime to its `updatedAt`: a store used over months has each meta.json
 * written when its session was last active, while this one was written in minutes under a
 * mocked Date. (A store copied or checked out at once has equal mtimes instead: the tree's first
 * page then reads every meta.json, the full list's cost: test/storage/list-newest.test.ts.)
 */
export function stampMetaTimes(root: string): void {
  const agents = join(root, ".downcity", "agents");
  for (const agent of readdirSync(agents)) {
    for (const area of ["sessions", "archived"]) {
      const dir = join(agents, agent, area);
      if (!existsSync(dir)) continue;
      for (const name of readdirSync(dir)) {
        const meta = join(dir, name, "meta.json");
        if (!existsSync(meta)) continue;
        const at = (JSON.parse(readFileSync(meta, "utf8")) as { updatedAt: number }).updatedAt / 1000;
        utimesSync(meta, at, at);
      }
    }
  }
}

/** A store under `root` written once and kept (a marker file says it is complete), so repeated runs skip the minutes of writing. */
export async function cachedStore(root: string, count: number, longEvents: number): Promise<string> {
  const marker = join(root, `.complete-${count}-${longEvents}`);
  const stamped = join(root, ".meta-times");
  if (!existsSync(marker)) {
    if (existsSync(join(root, ".downcity")))
      throw new Error(`${root} holds an incomplete or different store: remove it`);
    await writeStore(root, count, longEvents);
    writeFileSync(marker, "");
  }
  // Stores cached before the first page read mtimes were written with write-time mtimes.
  if (!existsSync(stamped)) {
    stampMetaTimes(root);
    writeFileSync(stamped, "");
  }
  return root;
}
