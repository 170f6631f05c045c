import { relative, sep } from "node:path";
import type { SessionListItem } from "../../session";
import { readIfExists } from "../fs/atomic";
import { nodeFs, type FsSeam } from "../fs/fs-seam";
import { decodeId, isHashedName } from "../id-codec";
import { agentsDir, areaDir, ID_FILE, META_FILE } from "../layout";
import { itemFromMeta } from "./list-item";
import { parseMeta } from "../meta";

export interface StoredItemAt {
  agentId: string;
  sessionId: string;
  archived: boolean;
  /** Undefined when the session directory or its meta.json is gone or unreadable. */
  item?: SessionListItem;
}

/**
 * The list item of the one session whose `meta.json` is at `metaPath` (a file watcher
 * saw it change): reads that meta only, never a log, never the whole list. Undefined
 * when the path is not a session's meta.json inside `root`'s store.
 */
export async function readStoredItemAt(
  root: string,
  metaPath: string,
  fs: FsSeam = nodeFs,
): Promise<StoredItemAt | undefined> {
  const parts = relative(agentsDir(root), metaPath).split(sep);
  if (parts.length !== 4 || parts[3] !== META_FILE) return undefined;
  const [agentName, area, name] = parts as [string, string, string];
  if (area !== "sessions" && area !== "archived") return undefined;
  const agentId = decodeId(agentName);
  if (agentId === undefined) return undefined;
  const dir = areaDir(root, agentId, area) + sep + name;
  const sessionId = isHashedName(name)
    ? (await readIfExists(fs, dir + sep + ID_FILE).catch(() => undefined))?.toString("utf8")
    : decodeId(name);
  if (sessionId === undefined) return undefined;
  const archived = area === "archived";
  // A linked session folder is never followed (the store may come from a cloned repository).
  const stat = await fs.lstat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) return { agentId, sessionId, archived };
  const meta = parseMeta(await readIfExists(fs, dir + sep + META_FILE).catch(() => undefined));
  if (!meta || meta.agentId !== agentId || meta.sessionId !== sessionId) return { agentId, sessionId, archived };
  return { agentId, sessionId, archived, item: itemFromMeta(meta, archived) };
}
