import { join, sep } from "node:path";
import type { StorageContext } from "../context";
import { namedError } from "./atomic";
import { isErrno } from "./fs-seam";
import { DOWNCITY_DIR, type SessionPaths } from "../layout";
import { SessionRefusedError } from "../errors";

/**
 * A `.downcity/` folder may arrive inside a cloned repository, so a symbolic link in it
 * could point a session's writes anywhere. No component from `.downcity/` down to the
 * session's history (its folder, `messages/`, Active, `segments/` and each segment, the
 * `session-id` of a hashed folder) may be a link: checked with lstat (files are also
 * opened with O_NOFOLLOW, which guards only the last component). The workspace root
 * itself may be a link (the user's own choice).
 *
 * DESIGN §4, "auxiliary files never block an intact log": meta.json, the draft and
 * writer.lock are not checked here. An open moves each one that is a link, a directory,
 * a FIFO or unreadable aside (a rename moves the link itself, never its target) and
 * rebuilds it (`open-session.ts`, `lock.ts`); a list never reads through one (O_NOFOLLOW,
 * O_NONBLOCK) and rebuilds that session's list attributes from its log.
 */
export async function assertNoLinks(ctx: StorageContext, paths: SessionPaths): Promise<void> {
  const base = join(ctx.root, DOWNCITY_DIR);
  const chain = [base];
  for (const part of paths.dir.slice(base.length + 1).split(sep)) chain.push(chain[chain.length - 1]! + sep + part);
  for (const path of chain) if (!(await checkOne(ctx, path))) return;
  await checkOne(ctx, paths.idFile);
  if (!(await checkOne(ctx, paths.messages))) return;
  for (const path of [paths.active, paths.segments]) await checkOne(ctx, path);
  try {
    for (const e of await ctx.fs.readdir(paths.segments)) {
      if (e.isSymbolicLink()) throw linkError(join(paths.segments, e.name));
    }
  } catch (error) {
    if (!isErrno(error, "ENOENT", "ENOTDIR")) throw error;
  }
}

/** Whether `path` exists (so its children may); throws when it is a link. */
async function checkOne(ctx: StorageContext, path: string): Promise<boolean> {
  try {
    const st = await ctx.fs.lstat(path);
    if (st.isSymbolicLink()) throw linkError(path);
    return true;
  } catch (error) {
    if (isErrno(error, "ENOENT", "ENOTDIR")) return false;
    throw namedError(error, path);
  }
}

function linkError(path: string): SessionRefusedError {
  return new SessionRefusedError(`refused: ${path} is a symbolic link (no part of a session's history may be a link)`);
}
