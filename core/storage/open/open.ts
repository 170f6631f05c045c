import { DEFAULT_AGENT_ID, type LocalSessionRef, type RepairReport, type Session } from "../../session";
import type { StorageContext } from "../context";
import { SessionNotFoundError } from "../errors";
import { isErrno } from "../fs/fs-seam";
import { describeOwner, WriterLock } from "../fs/lock";
import { assertNoLinks } from "../fs/no-links";
import type { Entry, HotSessions } from "../hot";
import { sessionPaths, type SessionPaths } from "../layout";
import { lockLost, register } from "../write/register";
import { ActiveFollower } from "./follower";
import { applyOpen, assertHasLog, planOpen, writePlannedMeta } from "./open-session";

export const refAgent = (ref: LocalSessionRef) => ref.agentId ?? DEFAULT_AGENT_ID;

/** A session's directory, live or archived, or undefined when there is none. */
export async function findDir(ctx: StorageContext, ref: LocalSessionRef): Promise<SessionPaths | undefined> {
  for (const area of ["sessions", "archived"] as const) {
    const paths = sessionPaths(ctx.root, refAgent(ref), ref.sessionId, area);
    try {
      if ((await ctx.fs.stat(paths.dir)).isDirectory()) return paths;
    } catch (error) {
      if (!isErrno(error, "ENOENT", "ENOTDIR")) throw error;
    }
  }
  return undefined;
}

/**
 * The one open path (cold open, after a crash or not): refuse links, lock, plan the
 * whole recovery from what is on disk, then apply it under the lock (see
 * `open-session.ts`). Damage opens read-only with every byte kept; a failed open
 * changes nothing and registers nothing.
 */
export async function openSession(
  hot: HotSessions,
  ref: LocalSessionRef,
): Promise<{ session: Session; report: RepairReport }> {
  const { ctx } = hot;
  const agentId = refAgent(ref);
  const paths = await findDir(ctx, ref);
  if (!paths)
    throw new SessionNotFoundError(`no session ${JSON.stringify(ref.sessionId)} for agent ${JSON.stringify(agentId)}`);
  await assertNoLinks(ctx, paths);
  await assertHasLog(ctx, paths);
  const actions: string[] = [];
  const reasons: string[] = [];
  let lock: WriterLock | undefined;
  let entryRef: Entry | undefined;
  if (paths.area === "archived") reasons.push("archived (unarchive it to continue)");
  else {
    const result = await WriterLock.acquire(
      ctx.fs,
      paths.lock,
      ctx.lock,
      (reason) => entryRef && lockLost(hot, entryRef, reason),
    );
    if ("lock" in result) {
      lock = result.lock;
      if (result.tookOver) actions.push(result.tookOver);
    } else reasons.push(`open for writing elsewhere (${describeOwner(result.heldBy)})`);
  }
  try {
    const plan = await planOpen(ctx, paths, reasons, actions);
    const { session } = plan;
    if (plan.readOnly !== undefined) {
      await lock?.release();
      lock = undefined;
      const entry = register(hot, session, paths, {
        fresh: false,
        ...(plan.oldMeta && { meta: plan.oldMeta }),
        segmentBytes: plan.oldMeta?.segmentBytes ?? 0,
        size: plan.validEnd,
      });
      if (plan.damage) entry.damage = { reason: plan.damage, inSegments: plan.segmentDamage === true };
      else if (paths.area === "sessions") {
        const ino = await ctx.fs.stat(paths.active).then(
          (s) => s.ino,
          () => undefined,
        );
        entry.follower = new ActiveFollower(ctx, paths, session, plan.validEnd, ino, (e) => hot.emitError(e, session));
        entry.follower.start();
      }
      return { session, report: { repaired: false, actions, readOnly: plan.readOnly } };
    }
    const { handle, size } = await applyOpen(ctx, paths, plan);
    const entry = register(hot, session, paths, {
      fresh: false,
      ...(handle && { handle }),
      size,
      meta: plan.meta,
      segmentBytes: plan.segmentBytes,
      lock: lock!,
    });
    entryRef = entry;
    await writePlannedMeta(ctx, paths, plan, (e) => hot.emitError(e, session));
    const repaired = actions.some((a) => !a.startsWith("took over"));
    return { session, report: { repaired, actions } };
  } catch (error) {
    await lock?.release();
    throw error;
  }
}
