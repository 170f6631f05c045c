import { randomUUID } from "node:crypto";
import { dirname, join } from "node:path";
import { ReadOnlySessionError } from "../../session";
import { fsyncDir, readIfExists } from "../fs/atomic";
import type { StorageContext } from "../context";
import { areaDir, sessionPaths, type Area, type SessionPaths } from "../layout";
import { rebuildMeta } from "../list/list-rebuild";
import { describeOwner, WriterLock } from "../fs/lock";
import { parseMeta, type SessionMeta } from "../meta";
import { SessionNotFoundError } from "../errors";
import { assertNoLinks } from "../fs/no-links";

/**
 * Whole-directory operations on cold sessions (archive, unarchive, delete). Each takes
 * the session's writer lock first, so it never pulls a directory from under a writer in
 * another window.
 */
async function lockForOperation(ctx: StorageContext, paths: SessionPaths): Promise<WriterLock | undefined> {
  if (paths.area !== "sessions") return undefined;
  const result = await WriterLock.acquire(ctx.fs, paths.lock, ctx.lock, () => {});
  if ("heldBy" in result)
    throw new ReadOnlySessionError(
      `session ${paths.sessionId} is open for writing elsewhere (${describeOwner(result.heldBy)})`,
    );
  return result.lock;
}

/** Moves a session between `sessions/` and `archived/`; returns its meta for the change feed. */
export async function moveSessionDir(
  ctx: StorageContext,
  agentId: string,
  sessionId: string,
  from: Area,
  to: Area,
): Promise<SessionMeta | undefined> {
  const { fs } = ctx;
  const src = sessionPaths(ctx.root, agentId, sessionId, from);
  const dst = sessionPaths(ctx.root, agentId, sessionId, to);
  if (!fs.existsSync(src.dir))
    throw new SessionNotFoundError(`no ${from === "archived" ? "archived " : ""}session ${JSON.stringify(sessionId)}`);
  if (fs.existsSync(dst.dir)) throw new Error(`session ${JSON.stringify(sessionId)} already exists in ${to}`);
  await assertNoLinks(ctx, src);
  const lock = await lockForOperation(ctx, src);
  try {
    await fs.mkdir(areaDir(ctx.root, agentId, to));
    await fs.rename(src.dir, dst.dir);
    await fsyncDir(fs, dirname(src.dir));
    await fsyncDir(fs, dirname(dst.dir));
  } catch (error) {
    await lock?.release();
    throw error;
  }
  // The lock moved with the directory; drop it there.
  if (lock) await fs.unlink(dst.lock).catch(() => {});
  await lock?.release();
  return parseMeta(await readIfExists(fs, dst.meta)) ?? (await rebuildMeta(ctx, agentId, sessionId, to));
}

/** Deletes a session for good: renamed aside first, so a crash never leaves half a session in lists. */
export async function deleteSessionDir(ctx: StorageContext, paths: SessionPaths): Promise<void> {
  const lock = await lockForOperation(ctx, paths);
  const trash = join(dirname(paths.dir), `.deleted-${randomUUID()}`);
  try {
    await ctx.fs.rename(paths.dir, trash);
  } catch (error) {
    await lock?.release();
    throw error;
  }
  await lock?.release();
  await ctx.fs.rm(trash);
  await fsyncDir(ctx.fs, dirname(paths.dir));
}
