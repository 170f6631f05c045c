import { join } from "node:path";
import type { SessionListItem } from "../../session";
import { readIfExists } from "../fs/atomic";
import type { StorageContext } from "../context";
import { decodeId, encodeId, isHashedName } from "../id-codec";
import { ID_FILE, sessionPaths, type Area, type SessionPaths } from "../layout";
import { itemFromMeta } from "./list-item";
import { loadLog } from "../open/load-log";
import { metaFromLog } from "../log-summary";
import { mapLimit } from "../fs/map-limit";
import { localTimeZone, type SessionMeta } from "../meta";
import { assertNoLinks } from "../fs/no-links";
import { listSegments } from "../segments-dir";

// The rare side of a list: sessions whose meta.json cannot be used as it is. Apart from
// `list.ts` because it parses event logs (records, protocol schemas, zod): a list of
// healthy sessions never loads it (the CLI builds it as a bundle of its own).

/** The session id a directory stands for: from its name, or the id file of a hashed name. */
export async function dirSessionId(ctx: StorageContext, dir: string, name: string): Promise<string | undefined> {
  if (!isHashedName(name)) return decodeId(name);
  return (await readIfExists(ctx.fs, join(dir, ID_FILE)))?.toString("utf8");
}

/**
 * Rebuilds a session's list attributes from its log (meta.json missing or corrupt).
 * Reads only the latest segment and Active, and stats the segments for their size.
 */
export async function rebuildMeta(
  ctx: StorageContext,
  agentId: string,
  sessionId: string,
  area: Area,
  old?: SessionMeta,
): Promise<SessionMeta | undefined> {
  const paths = sessionPaths(ctx.root, agentId, sessionId, area);
  await assertNoLinks(ctx, paths);
  const log = await loadLog(ctx, paths);
  if (!log.activeExists && log.segments.length === 0) return undefined;
  let segmentBytes = 0;
  for (const s of await listSegments(ctx, paths))
    segmentBytes += (await ctx.fs.stat(join(paths.segments, s.file))).size;
  const extra: Parameters<typeof metaFromLog>[2] = {
    timeZone: old?.timeZone ?? localTimeZone(),
    segmentBytes,
    fallbackTime: ctx.clock(),
  };
  if (old?.forkedFrom) extra.forkedFrom = old.forkedFrom;
  if (old?.createdAt !== undefined) extra.createdAt = old.createdAt;
  return metaFromLog(log, { sessionId, agentId }, extra);
}

export interface SessionDir {
  agentId: string;
  dir: string;
  name: string;
}

/**
 * List items for the sessions a meta.json alone could not list: a meta whose Active log
 * is gone (healthy if closed segments remain) and folders without a usable meta (rebuilt
 * from their logs, a few at a time). What is not a session is reported to `onDamaged`
 * (see `listStored` for the rule), never listed.
 */
export async function listUnusual(
  ctx: StorageContext,
  area: Area,
  logless: { meta: SessionMeta; dir: string; name: string }[],
  missing: SessionDir[],
  onDamaged: (agentId: string, folder: string, reason: string) => void,
): Promise<SessionListItem[]> {
  const archived = area === "archived";
  const items: SessionListItem[] = [];
  for (const { meta, dir, name } of logless) {
    const segments = await listSegments(ctx, { segments: join(dir, "messages", "segments") } as SessionPaths).catch(
      () => [],
    );
    if (segments.length > 0) items.push(itemFromMeta(meta, archived));
    else onDamaged(meta.agentId, name, NO_LOG);
  }
  const rebuilt = await mapLimit(missing, 8, async ({ agentId, dir, name }): Promise<SessionListItem | undefined> => {
    const sessionId = await dirSessionId(ctx, dir, name).catch(() => undefined);
    if (sessionId === undefined) {
      onDamaged(
        agentId,
        name,
        isHashedName(name)
          ? `its ${ID_FILE} file is missing or unreadable`
          : "its name is not the encoding of a session id",
      );
      return undefined;
    }
    // A folder stands only for the id that encodes to its name, never for another session.
    if (encodeId(sessionId) !== name) {
      onDamaged(agentId, name, `its ${ID_FILE} file names another session`);
      return undefined;
    }
    try {
      const meta = await rebuildMeta(ctx, agentId, sessionId, area);
      if (meta) return itemFromMeta(meta, archived);
      onDamaged(agentId, name, NO_LOG);
    } catch (error) {
      onDamaged(agentId, name, (error as Error).message);
    }
    return undefined;
  });
  for (const item of rebuilt) if (item) items.push(item);
  return items;
}

const NO_LOG = "it holds no event log (messages/active.jsonl or a segment)";
