import { sep } from "node:path";
import type { StorageContext } from "../context";
import { encodeId } from "../id-codec";
import { ACTIVE_FILE, META_FILE } from "../layout";
import { parseMeta, type SessionMeta } from "../meta";
import type { SessionDir } from "./list-rebuild";

export const ACTIVE_SUFFIX = `${sep}messages${sep}${ACTIVE_FILE}`;
export const META_SUFFIX = sep + META_FILE;

/**
 * One session folder as a list sees it, from its meta.json alone: listed; "missing" (no
 * usable meta.json, or one naming another session: rebuilt from its log or reported
 * damaged by the full list); or "logless" (with `verifyLogs`, a meta.json whose log is gone).
 */
export function readListed(
  ctx: StorageContext,
  d: SessionDir,
  verifyLogs: boolean,
): { kind: "listed" | "logless"; meta: SessionMeta } | { kind: "missing" } {
  let meta: SessionMeta | undefined;
  try {
    meta = parseMeta(ctx.fs.readTextSync(d.dir + META_SUFFIX));
  } catch {
    meta = undefined;
  }
  if (!meta || meta.agentId !== d.agentId || encodeId(meta.sessionId) !== d.name) return { kind: "missing" };
  // On request, one existence check per session: a meta.json whose log is gone must not list as healthy.
  if (verifyLogs && !ctx.fs.existsSync(d.dir + ACTIVE_SUFFIX)) return { kind: "logless", meta };
  return { kind: "listed", meta };
}
