import type { SessionListItem } from "../../core/session";
import type { FolderRuntime } from "../runtime/runtimes";
import type { DamagedTreeNode } from "./damaged";

/** The elements of the Sessions tree. Each is one stable object, so a refresh can name it. */
export type SessionTreeNode = FolderNode | AgentNode | ArchivedNode | SessionNode | DamagedTreeNode;

export interface FolderNode {
  kind: "folder";
  entry: FolderRuntime;
}
export interface AgentNode {
  kind: "agent";
  entry: FolderRuntime;
  agentId: string;
}
export interface ArchivedNode {
  kind: "archived";
  entry: FolderRuntime;
  agentId: string;
}

/** What this window knows about a session beyond its list item. */
export interface SessionActivity {
  /** Tool calls waiting for the user's approval. */
  waiting: Set<string>;
  /** The last turn seen here ended cancelled or with an error. */
  interrupted: boolean;
  running: boolean;
}

export interface SessionNode {
  kind: "session";
  entry: FolderRuntime;
  item: SessionListItem;
  activity: SessionActivity;
  /** Position in its group's sorted order (valid while the group's order is cached). */
  index: number;
}

export type SessionState = "running" | "waiting" | "interrupted" | "elsewhere" | "damaged" | "archived" | "idle";

export function sessionState(node: SessionNode): SessionState {
  const { item, activity } = node;
  if (activity.waiting.size > 0) return "waiting";
  if (activity.running || item.running) return "running";
  if (item.readOnly?.includes("damaged")) return "damaged";
  if (item.readOnly?.includes("elsewhere")) return "elsewhere";
  if (item.archived) return "archived";
  if (activity.interrupted) return "interrupted";
  return "idle";
}

export const sessionKey = (agentId: string, sessionId: string) => `${agentId}\u0000${sessionId}`;
