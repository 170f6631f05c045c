import type { StorageContext } from "./context";
import { isErrno } from "./fs/fs-seam";
import type { SessionPaths } from "./layout";
import { decodeSegment, sortSegments, type DecodedSegment, type SegmentName } from "./segment-codec";
import { join } from "node:path";

/** The segment names of a session, sorted by range (names only: nothing is read). */
export async function listSegments(ctx: StorageContext, paths: SessionPaths): Promise<SegmentName[]> {
  try {
    const entries = await ctx.fs.readdir(paths.segments);
    return sortSegments(entries.filter((e) => e.isFile()).map((e) => e.name));
  } catch (error) {
    if (isErrno(error, "ENOENT", "ENOTDIR")) return [];
    throw error;
  }
}

/** Reads and decodes one segment: one file read, one parse. */
export async function readSegment(
  ctx: StorageContext,
  paths: SessionPaths,
  name: SegmentName,
): Promise<DecodedSegment> {
  return decodeSegment(await ctx.fs.readFile(join(paths.segments, name.file)), name);
}
