import { opendirSync, readdirSync, type Dir } from "node:fs";
import { dirname, join, sep } from "node:path";
import type { StorageContext } from "../context";
import { isErrno } from "../fs/fs-seam";
import { decodeId } from "../id-codec";
import { agentsDir, areaDir, DOWNCITY_DIR, type Area } from "../layout";
import type { SessionDir } from "./list-rebuild";
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

const isLeftover = (name: string) => name.startsWith(".deleted-") || name.startsWith(".fork-");

/**
 * The session folders of one area (every agent's, or `agentId`'s), by enumeration: one readdir per agent, never a
 * folder reached through a link (`.downcity`, `agents`, an agent's folder and its area are each a real directory).
 * `leftovers` collects what a crash left beside them (`.deleted-*`, `.fork-*`), for the full list to sweep.
 */
export async function sessionDirs(
  ctx: StorageContext,
  area: Area,
  agentId: string | undefined,
  leftovers?: string[],
): Promise<SessionDir[]> {
  if (!(await agentsAreReal(ctx))) return [];
  const agents: string[] = [];
  if (agentId !== undefined) agents.push(agentId);
  else {
    for (const name of await readdirNames(ctx, agentsDir(ctx.root))) {
      const decoded = decodeId(name);
      if (decoded !== undefined) agents.push(decoded);
    }
  }
  const dirs: SessionDir[] = [];
  for (const agent of agents) {
    const base = areaDir(ctx.root, agent, area);
    if (!(await isRealDir(ctx, dirname(base))) || !(await isRealDir(ctx, base))) continue;
    // Plain concatenation: path.join per entry is measurable at 10,000 sessions.
    for (const name of await readdirNames(ctx, base, leftovers))
      dirs.push({ agentId: agent, dir: base + sep + name, name });
  }
  return dirs;
}

/** Whether `.downcity` and its `agents` are real directories: a store reached through a link lists nothing. */
export async function agentsAreReal(ctx: StorageContext): Promise<boolean> {
  return (await isRealDir(ctx, join(ctx.root, DOWNCITY_DIR))) && (await isRealDir(ctx, agentsDir(ctx.root)));
}

/**
 * Whether the live sessions of `root`'s agents number at least `count`, counted synchronously and never past it: at
 * most `count` directory entries are read, whatever the store's size. A hint for where a first page is listed (a
 * worker thread pays off only at scale), never a list: it reads names only and checks no folder (a linked store is
 * counted through; the list itself, on either thread, then lists nothing).
 */
export function holdsAtLeast(root: string, count: number): boolean {
  let seen = 0;
  try {
    for (const agent of readdirSync(agentsDir(root), { withFileTypes: true })) {
      if (!agent.isDirectory()) continue;
      let dir: Dir;
      try {
        dir = opendirSync(join(agentsDir(root), agent.name, "sessions"));
      } catch {
        continue;
      }
      try {
        for (let e = dir.readSync(); e && seen < count; e = dir.readSync()) if (e.isDirectory()) seen++;
      } finally {
        dir.closeSync();
      }
      if (seen >= count) return true;
    }
  } catch {
    return false;
  }
  return seen >= count;
}
