import { dirname, join, sep } from "node:path";
import type { ListFilter, SessionListItem } from "../../session";
import type { StorageContext } from "../context";
import { isErrno } from "../fs/fs-seam";
import { decodeId, encodeId } from "../id-codec";
import { agentsDir, areaDir, DOWNCITY_DIR, type Area } from "../layout";
import type { SessionMeta } from "../meta";
import { itemFromMeta } from "./list-item";
import { newestItems } from "./list-newest";
import { listOnly } from "./list-only";
import type { SessionDir } from "./list-rebuild";
import { readListed } from "./read-listed";
import { isRealDir } from "./real-dir";

/** Subdirectory names; dot-names are the store's temporaries and never sessions. */
async function readdirNames(ctx: StorageContext, dir: string, leftovers?: string[]): Promise<string[]> {
  try {
    const names: string[] = [];
    for (const e of await ctx.fs.readdir(dir)) {
      if (!e.isDirectory()) continue;
      if (!e.name.startsWith(".")) names.push(e.name);
      else if (leftovers && isLeftover(e.name)) leftovers.push(dir + sep + e.name);
    }
    return names;
  } catch (error) {
    if (isErrno(error, "ENOENT", "ENOTDIR")) return [];
    throw error;
  }
}

/** A fork in flight finishes in seconds; a `.fork-*` older than this was left by a crash. */
const STALE_FORK_MS = 10 * 60_000;
const isLeftover = (name: string) => name.startsWith(".deleted-") || name.startsWith(".fork-");

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
  const agents: { agentId: string; name: string }[] = [];
  if (!(await isRealDir(ctx, join(ctx.root, DOWNCITY_DIR))) || !(await isRealDir(ctx, agentsDir(ctx.root)))) return [];
  if (filter.sessions) {
    const wanted = filter.agentId;
    const refs = wanted === undefined ? filter.sessions : filter.sessions.filter((r) => r.agentId === wanted);
    return listOnly(ctx, refs, area, filter.verifyLogs === true);
  }
  if (filter.agentId !== undefined) agents.push({ agentId: filter.agentId, name: encodeId(filter.agentId) });
  else {
    for (const name of await readdirNames(ctx, agentsDir(ctx.root))) {
      const agentId = decodeId(name);
      if (agentId !== undefined) agents.push({ agentId, name });
    }
  }
  const dirs: SessionDir[] = [];
  const leftovers: string[] = [];
  for (const agent of agents) {
    const base = areaDir(ctx.root, agent.agentId, area);
    if (!(await isRealDir(ctx, dirname(base))) || !(await isRealDir(ctx, base))) continue;
    // Plain concatenation: path.join per entry is measurable at 10,000 sessions.
    for (const name of await readdirNames(ctx, base, leftovers))
      dirs.push({ agentId: agent.agentId, dir: base + sep + name, name });
  }
  const archived = area === "archived";
  // The first page: no sweep (the full list that follows does it), no rebuild of an unusual folder.
  if (filter.limit !== undefined) return newestItems(ctx, dirs, archived, filter.verifyLogs === true, filter.limit);
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
    const read = readListed(ctx, d, filter.verifyLogs === true);
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
