import { z } from "zod";

/**
 * How every part names a session (issue 22): the one vocabulary and the one key encoding.
 *
 * - `SessionRef`: a session anywhere in a window (the chat, commands, approvals): the folder (`folderKey`, its URI
 *   string), the agent and the session. Two agents, or two folders, may hold the same session id, and a cloned
 *   `.downcity/` can do that on purpose, so all three parts always count.
 * - `LocalSessionRef`: a session inside one folder (a runtime, the store): agent and session; the agent left out means
 *   the folder's first agent (the CLI's `--session <id>`).
 */

const Id = z.string().min(1).max(200);
export const FolderKey = z.string().min(1).max(4096);

export const SessionRef = z.object({ folderKey: FolderKey, agentId: Id, sessionId: Id });
export type SessionRef = z.infer<typeof SessionRef>;

export interface LocalSessionRef {
  agentId?: string;
  sessionId: string;
}

/** The parts a key is made of; the agent resolved (see `LocalSessionRef`). */
export interface AgentSessionRef {
  agentId: string;
  sessionId: string;
}

/**
 * The one map-key encoding of a session. Inside one folder (a runtime, the store, one folder's tree or live state)
 * pass the agent and session only; where one map holds several folders (the window's approvals) pass the folder too:
 * `sessionKey(ref, ref.folderKey)`. A folder-qualified key has one more part, so the two kinds never collide. JSON
 * keeps any character in an id unambiguous.
 */
export function sessionKey(ref: AgentSessionRef, folderKey?: string): string {
  return JSON.stringify(
    folderKey === undefined ? [ref.agentId, ref.sessionId] : [folderKey, ref.agentId, ref.sessionId],
  );
}

/**
 * The one map-key encoding of a tool call: call ids are unique only within a session (local servers send call_0 in
 * every one), so a call is known by its session and its id. `folderKey` as in `sessionKey`: passed where one map
 * holds several folders.
 */
export function callKey(ref: AgentSessionRef, toolCallId: string, folderKey?: string): string {
  return JSON.stringify([sessionKey(ref, folderKey), toolCallId]);
}

/** The same session: folder, agent and session (a ref without a folder equals only another without one). */
export function sameRef(
  a: AgentSessionRef & { folderKey?: string },
  b: AgentSessionRef & { folderKey?: string },
): boolean {
  return a.folderKey === b.folderKey && a.agentId === b.agentId && a.sessionId === b.sessionId;
}
