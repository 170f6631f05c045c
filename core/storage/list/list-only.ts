import { dirname, sep } from "node:path";
import type { AgentSessionRef } from "../../protocol";
import type { SessionListItem } from "../../session";
import type { StorageContext } from "../context";
import { encodeId } from "../id-codec";
import { areaDir, type Area } from "../layout";
import { itemFromMeta } from "./list-item";
import { byUpdated } from "./order";
import { readListed } from "./read-listed";
import { isRealDir } from "./real-dir";

/**
 * Exactly these sessions of one area, newest first, those that still list healthy, without
 * enumerating the area: per session one `lstat` (a real folder, never a link: the refs may
 * name anything) and one meta.json read. A tree draws the rows it showed in the last window
 * from this before its first page, whose one `lstat` per session is what 10,000 sessions cost
 * (issue 20). A session gone, moved or damaged is left out, unreported: the full list that
 * follows lists or reports it. Each row is read now, so none
 * shows a title or time older than its meta.json; only a session not named here is missing.
 */
export async function listOnly(
  ctx: StorageContext,
  refs: readonly AgentSessionRef[],
  area: Area,
  verifyLogs: boolean,
): Promise<SessionListItem[]> {
  const areas = new Map<string, boolean>();
  const seen = new Set<string>();
  const items: SessionListItem[] = [];
  for (const { agentId, sessionId } of refs) {
    const base = areaDir(ctx.root, agentId, area);
    let real = areas.get(base);
    if (real === undefined) {
      real = (await isRealDir(ctx, dirname(base))) && (await isRealDir(ctx, base));
      areas.set(base, real);
    }
    const name = encodeId(sessionId);
    const dir = base + sep + name;
    if (!real || seen.has(dir)) continue;
    seen.add(dir);
    if (!(await isRealDir(ctx, dir))) continue;
    const read = readListed(ctx, { agentId, dir, name }, verifyLogs);
    if (read.kind === "listed") items.push(itemFromMeta(read.meta, area === "archived"));
  }
  return items.sort(byUpdated);
}
