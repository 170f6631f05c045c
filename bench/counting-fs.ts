import { nodeFs, type FsSeam } from "../core/storage/fs/fs-seam";

/** The real fs seam, counting its calls by name. */
export function countingFs(): { fs: FsSeam; calls: Record<string, number> } {
  const calls: Record<string, number> = {};
  const fs = Object.fromEntries(
    Object.entries(nodeFs).map(([k, fn]) => [
      k,
      (...a: unknown[]) => ((calls[k] = (calls[k] ?? 0) + 1), (fn as (...x: unknown[]) => unknown)(...a)),
    ]),
  ) as unknown as FsSeam;
  return { fs, calls };
}
