import { randomUUID } from "node:crypto";
import type { DamagedFolder, ForkOptions, LocalSessionRef, Session, SessionListItem } from "../../session";
import { SessionNotFoundError, SessionRefusedError } from "../errors";
import { assertNoLinks } from "../fs/no-links";
import type { HotSessions } from "../hot";
import { folderPaths, sessionPaths, type Area } from "../layout";
import { listStored } from "../list/list";
import { itemFromMeta } from "../list/list-item";
import { findDir, refAgent } from "../open/open";
import { deleteSessionDir, moveSessionDir } from "./directory-ops";
import { forkSession } from "./fork";
import { flush } from "./writes";

/** Whether the session has a directory, live or archived (sync: for id choices). */
export function existsSync(hot: HotSessions, ref: LocalSessionRef): boolean {
  const agentId = refAgent(ref);
  return (["sessions", "archived"] as const).some((area) =>
    hot.ctx.fs.existsSync(sessionPaths(hot.ctx.root, agentId, ref.sessionId, area).dir),
  );
}

/**
 * A damaged session (hot and read-only, or cold) is refused unless `validPrefix` asks
 * for its valid prefix; then the fork says so in its `forkedFrom.validPrefix`.
 */
export async function fork(
  hot: HotSessions,
  ref: LocalSessionRef,
  options: ForkOptions,
  session?: Session,
): Promise<SessionListItem> {
  if (session) await flush(hot, session);
  const entry = session ? hot.entries.get(session) : undefined;
  const source = entry ? entry.paths : await findDir(hot.ctx, ref);
  if (!source) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
  await assertNoLinks(hot.ctx, source);
  if (entry?.damage && (!options.validPrefix || entry.damage.inSegments)) {
    throw new SessionRefusedError(
      `cannot fork damaged session ${JSON.stringify(ref.sessionId)}: ${entry.damage.reason}${entry.damage.inSegments ? "" : ` (fork its valid prefix, through seq ${session!.lastSeq}, with validPrefix)`}`,
    );
  }
  const newId = options.newId ?? `session-${randomUUID()}`;
  if (existsSync(hot, { agentId: source.agentId, sessionId: newId }))
    throw new Error(`session ${JSON.stringify(newId)} already exists`);
  const meta = await forkSession(
    hot.ctx,
    source,
    newId,
    options.atSeq,
    session,
    options.validPrefix === true && (!session || entry?.damage !== undefined),
  );
  const item = itemFromMeta(meta, false);
  hot.emitChange("created", item.agentId, item.sessionId, item);
  return item;
}

/** Archive (sessions → archived) or unarchive (archived → sessions). */
export async function move(hot: HotSessions, ref: LocalSessionRef, from: Area, to: Area): Promise<void> {
  const agentId = refAgent(ref);
  const meta = await moveSessionDir(hot.ctx, agentId, ref.sessionId, from, to);
  hot.emitChange("updated", agentId, ref.sessionId, meta ? itemFromMeta(meta, to === "archived") : undefined);
}

export async function remove(hot: HotSessions, ref: LocalSessionRef): Promise<void> {
  const paths = await findDir(hot.ctx, ref);
  if (!paths) throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)}`);
  await assertNoLinks(hot.ctx, paths);
  await deleteSessionDir(hot.ctx, paths);
  hot.emitChange("removed", paths.agentId, paths.sessionId);
}

/**
 * Deletes a folder a list reported damaged. Listed again first: a folder that has
 * become a session since (its log published, its meta rebuilt) is never deleted here.
 */
export async function removeDamaged(hot: HotSessions, folder: DamagedFolder): Promise<void> {
  const area: Area = folder.archived ? "archived" : "sessions";
  const paths = folderPaths(hot.ctx.root, folder.agentId, area, folder.folder);
  let still = false;
  await listStored(hot.ctx, {
    agentId: folder.agentId,
    archived: folder.archived,
    verifyLogs: true,
    onDamaged: (d) => (still ||= d.folder === folder.folder),
  });
  if (!still) throw new SessionRefusedError(`${paths.dir} is no longer a damaged folder (nothing was deleted)`);
  await deleteSessionDir(hot.ctx, paths);
}
