import type { DamagedFolder } from "../session";
import { encodeId } from "../storage/id-codec";
import { folderPaths } from "../storage/layout";
import { readStoredItemAt } from "../storage/list/stored-item";
import type { StoredSessionAt } from "./types";

/** Where a folder a list reported damaged is (WorkspaceRuntimeApi.damagedDir; no session needs to be open). */
export function damagedDirOf(root: string, folder: DamagedFolder): string {
  return folderPaths(root, folder.agentId, folder.archived ? "archived" : "sessions", folder.folder).dir;
}

/** The one session whose meta.json is at `metaPath`, read alone (WorkspaceRuntimeApi.storedItemAt). */
export async function storedSessionAt(root: string, metaPath: string): Promise<StoredSessionAt | undefined> {
  const found = await readStoredItemAt(root, metaPath);
  return found && { ...found, folder: encodeId(found.sessionId) };
}
