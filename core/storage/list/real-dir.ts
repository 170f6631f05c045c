import type { StorageContext } from "../context";

/** Whether `path` is a real directory (a linked `.downcity` part is never listed through). */
export async function isRealDir(ctx: StorageContext, path: string): Promise<boolean> {
  try {
    return (await ctx.fs.lstat(path)).isDirectory();
  } catch {
    return false;
  }
}
