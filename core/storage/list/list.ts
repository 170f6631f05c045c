import { sep } from "node:path";
import type { ListFilter, SessionListItem } from "../../session";
import type { StorageContext } from "../context";
import type { Area } from "../layout";
import type { SessionMeta } from "../meta";
import { itemFromMeta } from "./list-item";
import { firstPage } from "./list-newest";
import { listOnly } from "./list-only";
import type { SessionDir } from "./list-rebuild";
import { readListed } from "./read-listed";
import { agentsAreReal, sessionDirs } from "./session-dirs";

/** A fork in flight finishes in seconds; a `.fork-*` older than this was left by a crash. */
const STALE_FORK_MS = 10 * 60_000;

/**
 * Removes what a crash left behind: `.deleted-*` (a delete renamed aside, then
 * interrupted) and stale `.fork-*` (a fork never published). Neither is a session.
 */
async function sweepLeftovers(ctx: StorageContext, paths: string[]): Promise<void> {
  for (const path of paths) {
    try {
      if (
        path.slice(path.lastIndexOf(sep) + 1).startsWith(".fork-") &&
        ctx.clock() - (await ctx.fs.stat(path)).mtimeMs < STALE_FORK_MS
      )
        continue;
      await ctx.fs.rm(path);
    } catch {
      // Housekeeping only: another process may be removing it too.
    }
  }
}

/**
 * The cold side of the Sessions list: enumerate session directories and read only
 * their meta.json, with bounded concurrency. No event log is parsed unless a meta is
 * missing or corrupt (then that one session is rebuilt from its log).
 *
 * DESIGN §5, "a list shows only real sessions": a folder is listed as a session only
 * when it holds an event log and its identity agrees with where it is (the folder name,
 * or its hash and `session-id`, the id and agent in meta.json, and a log whose records
 * rebuild the meta when that is missing). Anything else (a stray directory, a hashed
 * folder naming another session, a name that is no id's encoding, a meta.json without
 * a log) is left out and reported to `filter.onDamaged` by its folder name, never under
 * an id or a title it claims. The log check is one existence check per session, only
 * with `verifyLogs` (its cost: BENCHMARKS.md "Store: lists show only real sessions");
 * a folder without a usable meta.json is always checked.
 */
export async function listStored(ctx: StorageContext, filter: ListFilter = {}): Promise<SessionListItem[]> {
  const area: Area = filter.archived ? "archived" : "sessions";
  const archived = area === "archived";
  const verifyLogs = filter.verifyLogs === true;
  if (filter.sessions) {
    if (!(await agentsAreReal(ctx))) return [];
    const wanted = filter.agentId;
    const refs = wanted === undefined ? filter.sessions : filter.sessions.filter((r) => r.agentId === wanted);
    return listOnly(ctx, refs, area, verifyLogs);
  }
  // The first page: no sweep (the full list that follows does it), no rebuild of an unusual folder.
  if (filter.limit !== undefined)
    return firstPage(ctx, { agentId: filter.agentId, archived, verifyLogs, limit: filter.limit });
  const leftovers: string[] = [];
  const dirs = await sessionDirs(ctx, area, filter.agentId, leftovers);
  if (leftovers.length > 0) await sweepLeftovers(ctx, leftovers);
  const items: SessionListItem[] = [];
  const missing: SessionDir[] = [];
  const logless: { meta: SessionMeta; dir: string; name: string }[] = [];
  // meta.json reads in chunks of `listConcurrency`, yielding to the event loop between
  // chunks so a 10,000-session list never blocks it for more than a few milliseconds.
  // Each meta becomes its item at once: no array of metas kept beside the items.
  for (let i = 0; i < dirs.length; i++) {
    if (i > 0 && i % ctx.listConcurrency === 0) await new Promise((r) => setImmediate(r));
    const d = dirs[i]!;
    const read = readListed(ctx, d, verifyLogs);
    if (read.kind === "missing") missing.push(d);
    else if (read.kind === "listed") items.push(itemFromMeta(read.meta, archived));
    else logless.push({ meta: read.meta, dir: d.dir, name: d.name });
  }
  if (logless.length === 0 && missing.length === 0) return items;
  // Loaded only now: it parses event logs (zod), which a list of healthy sessions never needs.
  const { listUnusual } = require("./list-rebuild") as typeof import("./list-rebuild");
  const report = filter.onDamaged;
  const onDamaged = (agentId: string, folder: string, reason: string) =>
    report?.({ agentId, archived, folder, reason });
  for (const item of await listUnusual(ctx, area, logless, missing, onDamaged)) items.push(item);
  return items;
}

export { byUpdated, sortByUpdated } from "./order";
