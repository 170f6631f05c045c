import type { SessionListItem } from "../../session";
import type { StorageContext } from "../context";
import { itemFromMeta } from "./list-item";
import type { SessionDir } from "./list-rebuild";
import { byUpdated } from "./order";
import { META_SUFFIX, readListed } from "./read-listed";
import { sessionDirs } from "./session-dirs";

/**
 * How far a meta.json's mtime may trail the `updatedAt` written in it: the kernel's coarse
 * clock lags Date.now() by a tick, and some filesystems keep whole seconds (FAT: two).
 */
export const MTIME_SLACK_MS = 2_000;

/**
 * A list's first page (`ListFilter.limit`): the `limit` newest sessions of each agent of one area (or of `agentId`),
 * newest first. The one code of a first page, on the host's thread (list.ts) or off it (first-page-worker.ts).
 */
export async function firstPage(
  ctx: StorageContext,
  filter: { agentId?: string | undefined; archived: boolean; verifyLogs: boolean; limit: number },
): Promise<SessionListItem[]> {
  const dirs = await sessionDirs(ctx, filter.archived ? "archived" : "sessions", filter.agentId);
  return newestItems(ctx, dirs, filter.archived, filter.verifyLogs, filter.limit);
}

/**
 * The `limit` newest sessions of each agent in `dirs` (the first page of a list: a tree
 * grouped by agent shows every agent's level and its newest groups from it), newest first
 * across agents, without reading every
 * meta.json: one `lstat` per folder, then meta.json reads newest-mtime first, stopping once
 * the `limit`-th newest read is newer than the next folder's mtime (+ slack). A meta.json is
 * written after the activity it records, so its `updatedAt` never exceeds its mtime: no
 * folder left unread can belong to the page. A store whose mtimes say nothing (all copied
 * at once) is read whole, which is the full list's cost; the page is the same either way.
 * Folders without a usable meta.json are left to the full list (it rebuilds or reports them).
 */
async function newestItems(
  ctx: StorageContext,
  dirs: readonly SessionDir[],
  archived: boolean,
  verifyLogs: boolean,
  limit: number,
): Promise<SessionListItem[]> {
  if (limit <= 0) return [];
  const perAgent = new Map<string, SessionDir[]>();
  for (const d of dirs) {
    let agent = perAgent.get(d.agentId);
    if (!agent) perAgent.set(d.agentId, (agent = []));
    agent.push(d);
  }
  const items: SessionListItem[] = [];
  for (const agentDirs of perAgent.values())
    items.push(...(await newestOfOne(ctx, agentDirs, archived, verifyLogs, limit)));
  return items.sort(byUpdated);
}

/** The `limit` newest of one agent's folders (see newestItems). */
async function newestOfOne(
  ctx: StorageContext,
  dirs: readonly SessionDir[],
  archived: boolean,
  verifyLogs: boolean,
  limit: number,
): Promise<SessionListItem[]> {
  const stamped: { d: SessionDir; mtime: number }[] = [];
  // A stat is a few times cheaper than a read: larger chunks between the event loop's turns.
  const statChunk = ctx.listConcurrency * 4;
  for (let i = 0; i < dirs.length; i++) {
    if (i > 0 && i % statChunk === 0) await new Promise((r) => setImmediate(r));
    const d = dirs[i]!;
    const mtime = ctx.fs.mtimeSync(d.dir + META_SUFFIX);
    if (mtime !== undefined) stamped.push({ d, mtime });
  }
  stamped.sort((a, b) => b.mtime - a.mtime);
  const top: SessionListItem[] = [];
  let reads = 0;
  for (const { d, mtime } of stamped) {
    if (top.length === limit && top[limit - 1]!.updatedAt > mtime + MTIME_SLACK_MS) break;
    if (++reads % ctx.listConcurrency === 0) await new Promise((r) => setImmediate(r));
    const read = readListed(ctx, d, verifyLogs);
    if (read.kind !== "listed") continue;
    const item = itemFromMeta(read.meta, archived);
    if (top.length === limit && byUpdated(item, top[limit - 1]!) >= 0) continue;
    // Insertion into the sorted page (it holds `limit` items, a few dozen).
    let at = top.length;
    while (at > 0 && byUpdated(item, top[at - 1]!) < 0) at--;
    top.splice(at, 0, item);
    if (top.length > limit) top.pop();
  }
  return top;
}
