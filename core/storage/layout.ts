import { join } from "node:path";
import { encodeId } from "./id-codec";

/** Where everything of one workspace lives (DESIGN §4). */
export const DOWNCITY_DIR = ".downcity";
export const META_FILE = "meta.json";
/** Full session id, written only beside hashed (over-long) directory names. */
export const ID_FILE = "session-id";
export const LOCK_FILE = "writer.lock";
export const ACTIVE_FILE = "active.jsonl";
export const DRAFT_FILE = "assistant_message.json";
/** Content blobs and private git objects of the session's checkpoints (restore, issue 24). */
export const CHECKPOINTS_DIR = "checkpoints";

export type Area = "sessions" | "archived";

export interface SessionPaths {
  agentId: string;
  sessionId: string;
  area: Area;
  name: string;
  dir: string;
  meta: string;
  idFile: string;
  lock: string;
  messages: string;
  active: string;
  draft: string;
  segments: string;
}

export function agentsDir(root: string): string {
  return join(root, DOWNCITY_DIR, "agents");
}

export function areaDir(root: string, agentId: string, area: Area): string {
  return join(agentsDir(root), encodeId(agentId), area);
}

/** The paths of a folder in an area by its name alone (a damaged folder claims no usable id). */
export function folderPaths(root: string, agentId: string, area: Area, folder: string): SessionPaths {
  if (folder.length === 0 || folder.startsWith(".") || /[\\/]/.test(folder))
    throw new Error(`not a session folder name: ${JSON.stringify(folder)}`);
  const paths = sessionPaths(root, agentId, "", area);
  const dir = join(areaDir(root, agentId, area), folder);
  const messages = join(dir, "messages");
  return {
    ...paths,
    name: folder,
    dir,
    meta: join(dir, META_FILE),
    idFile: join(dir, ID_FILE),
    lock: join(dir, LOCK_FILE),
    messages,
    active: join(messages, ACTIVE_FILE),
    draft: join(messages, DRAFT_FILE),
    segments: join(messages, "segments"),
  };
}

export function sessionPaths(root: string, agentId: string, sessionId: string, area: Area = "sessions"): SessionPaths {
  const name = encodeId(sessionId);
  const dir = join(areaDir(root, agentId, area), name);
  const messages = join(dir, "messages");
  return {
    agentId,
    sessionId,
    area,
    name,
    dir,
    meta: join(dir, META_FILE),
    idFile: join(dir, ID_FILE),
    lock: join(dir, LOCK_FILE),
    messages,
    active: join(messages, ACTIVE_FILE),
    draft: join(messages, DRAFT_FILE),
    segments: join(messages, "segments"),
  };
}
