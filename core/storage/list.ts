import { dirname, join, sep } from "node:path";
import type { ListFilter, SessionListItem } from "../session";
import { readIfExists } from "./atomic";
import type { StorageContext } from "./context";
import { isErrno } from "./fs-seam";
import { decodeId, encodeId, isHashedName } from "./id-codec";
import { ACTIVE_FILE, agentsDir, areaDir, DOWNCITY_DIR, ID_FILE, META_FILE, sessionPaths, type Area, type SessionPaths } from "./layout";
import { assertNoLinks } from "./no-links";

const ACTIVE_SUFFIX = `${sep}messages${sep}${ACTIVE_FILE}`;
import { loadLog } from "./load-log";
import { localTimeZone, parseMeta, type SessionMeta } from "./meta";
import { metaFromLog } from "./log-summary";
import { mapLimit } from "./map-limit";
import { listSegments } from "./segments-dir";

export function itemFromMeta(meta: SessionMeta, archived: boolean): SessionListItem {
  const item: SessionListItem = {
    sessionId: meta.sessionId,
    agentId: meta.agentId,
    title: meta.title,
    titleSource: meta.titleSource,
    model: meta.model,
    createdAt: meta.createdAt,
    updatedAt: meta.updatedAt,
    messageCount: meta.messageCount,
    historyBytes: meta.historyBytes,
    timeZone: meta.timeZone,
    archived,
    hot: false,
  };
  if (meta.forkedFrom) item.forkedFrom = meta.forkedFrom;
  return item;
}

/** A list item for a folder that cannot be listed as the session it claims (the tree shows it as damaged). */
function damagedItem(agentId: string, sessionId: string, archived: boolean, damaged: string, meta?: SessionMeta): SessionListItem {
  const item: SessionListItem = meta
    ? itemFromMeta(meta, archived)
    : { sessionId, agentId, title: undefined, titleSource: undefined, model: undefined, createdAt: 0, updatedAt: 0, messageCount: 0, historyBytes: 0, timeZone: localTimeZone(), archived, hot: false };
  item.damaged = damaged;
  return item;
}

/** Whether `path` is a real directory (a linked `.downcity` part is never listed through). */
async function isRealDir(ctx: StorageContext, path: string): Promise<boolean> {
  try {
    return (await ctx.fs.lstat(path)).isDirectory();
  } catch {
    return false;
  }
}

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
      if (path.slice(path.lastIndexOf(sep) + 1).startsWith(".fork-") && ctx.clock() - (await ctx.fs.stat(path)).mtimeMs < STALE_FORK_MS) continue;
      await ctx.fs.rm(path);
    } catch {
      // Housekeeping only: another process may be removing it too.
    }
  }
}

/** The session id a directory stands for: from its name, or the id file of a hashed name. */
export async function dirSessionId(ctx: StorageContext, dir: string, name: string): Promise<string | undefined> {
  if (!isHashedName(name)) return decodeId(name);
  return (await readIfExists(ctx.fs, join(dir, ID_FILE)))?.toString("utf8");
}

/**
 * Rebuilds a session's list attributes from its log (meta.json missing or corrupt).
 * Reads only the latest segment and Active, and stats the segments for their size.
 */
export async function rebuildMeta(ctx: StorageContext, agentId: string, sessionId: string, area: Area, old?: SessionMeta): Promise<SessionMeta | undefined> {
  const paths = sessionPaths(ctx.root, agentId, sessionId, area);
  await assertNoLinks(ctx, paths);
  const log = await loadLog(ctx, paths);
  if (!log.activeExists && log.segments.length === 0) return undefined;
  let segmentBytes = 0;
  for (const s of await listSegments(ctx, paths)) segmentBytes += (await ctx.fs.stat(join(paths.segments, s.file))).size;
  const extra: Parameters<typeof metaFromLog>[2] = { timeZone: old?.timeZone ?? localTimeZone(), segmentBytes, fallbackTime: ctx.clock() };
  if (old?.forkedFrom) extra.forkedFrom = old.forkedFrom;
  if (old?.createdAt !== undefined) extra.createdAt = old.createdAt;
  return metaFromLog(log, { sessionId, agentId }, extra);
}

/**
 * The cold side of the Sessions list: enumerate session directories and read only
 * their meta.json, with bounded concurrency. No event log is parsed unless a meta is
 * missing or corrupt (then that one session is rebuilt from its log).
 */
export async function listStored(ctx: StorageContext, filter: ListFilter = {}): Promise<SessionListItem[]> {
  const area: Area = filter.archived ? "archived" : "sessions";
  const agents: { agentId: string; name: string }[] = [];
  if (!(await isRealDir(ctx, join(ctx.root, DOWNCITY_DIR))) || !(await isRealDir(ctx, agentsDir(ctx.root)))) return [];
  if (filter.agentId !== undefined) agents.push({ agentId: filter.agentId, name: encodeId(filter.agentId) });
  else {
    for (const name of await readdirNames(ctx, agentsDir(ctx.root))) {
      const agentId = decodeId(name);
      if (agentId !== undefined) agents.push({ agentId, name });
    }
  }
  const dirs: { agentId: string; dir: string; name: string }[] = [];
  const leftovers: string[] = [];
  for (const agent of agents) {
    const base = areaDir(ctx.root, agent.agentId, area);
    if (!(await isRealDir(ctx, dirname(base))) || !(await isRealDir(ctx, base))) continue;
    // Plain concatenation: path.join per entry is measurable at 10,000 sessions.
    for (const name of await readdirNames(ctx, base, leftovers)) dirs.push({ agentId: agent.agentId, dir: base + sep + name, name });
  }
  if (leftovers.length > 0) await sweepLeftovers(ctx, leftovers);
  // meta.json reads in chunks of `listConcurrency`, yielding to the event loop between
  // chunks so a 10,000-session list never blocks it for more than a few milliseconds.
  const metas: (SessionMeta | undefined)[] = [];
  for (let i = 0; i < dirs.length; i += ctx.listConcurrency) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    for (const { agentId, dir, name } of dirs.slice(i, i + ctx.listConcurrency)) {
      let meta: SessionMeta | undefined;
      try {
        meta = parseMeta(ctx.fs.readFileSync(dir + sep + META_FILE));
      } catch {
        meta = undefined;
      }
      metas.push(meta && meta.agentId === agentId && encodeId(meta.sessionId) === name ? meta : undefined);
    }
  }
  const archived = area === "archived";
  const items: SessionListItem[] = [];
  const missing: typeof dirs = [];
  const logless: { meta: SessionMeta; dir: string }[] = [];
  dirs.forEach((d, i) => {
    const meta = metas[i];
    // On request, one existence check per session: a meta.json whose log is gone must not list as healthy.
    if (meta && (!filter.verifyLogs || ctx.fs.existsSync(d.dir + ACTIVE_SUFFIX))) items.push(itemFromMeta(meta, archived));
    else if (meta) logless.push({ meta, dir: d.dir });
    else missing.push(d);
  });
  for (const { meta, dir } of logless) {
    const segments = await listSegments(ctx, { segments: join(dir, "messages", "segments") } as SessionPaths).catch(() => []);
    items.push(segments.length > 0 ? itemFromMeta(meta, archived) : damagedItem(meta.agentId, meta.sessionId, archived, "its event log is gone (messages/active.jsonl)", meta));
  }
  // Sessions without a usable meta.json (rare) are rebuilt from their logs, a few at a time.
  const rebuilt = await mapLimit(missing, 8, async ({ agentId, dir, name }): Promise<SessionListItem | undefined> => {
    const sessionId = await dirSessionId(ctx, dir, name).catch(() => undefined);
    if (sessionId === undefined) return isHashedName(name) ? damagedItem(agentId, name, archived, `its ${ID_FILE} file is missing or unreadable`) : undefined;
    // A folder stands only for the id that encodes to its name, never for another session.
    if (encodeId(sessionId) !== name) return damagedItem(agentId, name, archived, `its ${ID_FILE} file names another session`);
    try {
      const meta = await rebuildMeta(ctx, agentId, sessionId, area);
      return meta ? itemFromMeta(meta, archived) : damagedItem(agentId, sessionId, archived, "its event log is gone (messages/active.jsonl)");
    } catch (error) {
      return damagedItem(agentId, sessionId, archived, (error as Error).message);
    }
  });
  for (const item of rebuilt) if (item) items.push(item);
  return items;
}

export function sortByUpdated(items: SessionListItem[]): SessionListItem[] {
  return items.sort((a, b) => b.updatedAt - a.updatedAt || (a.sessionId < b.sessionId ? -1 : 1));
}
