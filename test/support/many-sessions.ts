// Many sessions quickly: one session written by the store itself, then its folder copied
// under new ids with meta.json rewritten as the store would have written it at another
// time, and its mtime set to that time (a meta.json is written when its session was last
// active). Lists read meta.json and check the log exists, so each copy lists as a session.
import { copyFileSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Sessions, sessionPaths } from "../../core/storage";

export const DAY = 86_400_000;

/**
 * `count` sessions of `agentId` under `root`, ids `s0000`…, session i last active at
 * `times(i)` (ms) with its meta.json's mtime at that time. Returns the ids.
 */
export async function manySessions(
  root: string,
  count: number,
  times: (i: number) => number,
  agentId = "code",
): Promise<string[]> {
  const writer = new Sessions({ root, batchWindowMs: 1, metaIntervalMs: 0 });
  const template = writer.create({ id: "template", agentId });
  template.append("user/message", { content: [{ type: "text", text: "a question" }] }, { surface: "append" });
  await writer.close();
  const from = sessionPaths(root, agentId, "template").dir;
  const meta = JSON.parse(readFileSync(join(from, "meta.json"), "utf8")) as Record<string, unknown>;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `s${String(i).padStart(4, "0")}`;
    const dir = sessionPaths(root, agentId, id).dir;
    // The template holds a meta.json and its log, nothing else.
    mkdirSync(join(dir, "messages"), { recursive: true });
    copyFileSync(join(from, "messages", "active.jsonl"), join(dir, "messages", "active.jsonl"));
    const at = times(i);
    const file = join(dir, "meta.json");
    writeFileSync(
      file,
      JSON.stringify({ ...meta, sessionId: id, title: `Session ${i}`, createdAt: at, updatedAt: at }),
    );
    utimesSync(file, at / 1000, at / 1000);
    ids.push(id);
  }
  rmSync(from, { recursive: true });
  return ids;
}

/** Sets every listed meta.json's mtime to `at`: a store copied or checked out at once, whose mtimes say nothing. */
export function touchAll(root: string, ids: readonly string[], at: number, agentId = "code"): void {
  for (const id of ids) utimesSync(join(sessionPaths(root, agentId, id).dir, "meta.json"), at / 1000, at / 1000);
}
