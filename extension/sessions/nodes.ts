import type { SessionListItem } from "../../core/runtime";
import type { OpenFolder } from "../folders/registry";
import type { DamagedTreeNode } from "./damaged";

/** The elements of the Sessions tree. Each is one stable object, so a refresh can name it. */
export type SessionTreeNode =
  FolderNode | AgentNode | ArchivedNode | DateNode | MoreNode | SessionNode | DamagedTreeNode;

export interface FolderNode {
  kind: "folder";
  entry: OpenFolder;
}
export interface AgentNode {
  kind: "agent";
  entry: OpenFolder;
  agentId: string;
}
export interface ArchivedNode {
  kind: "archived";
  entry: OpenFolder;
  agentId: string;
}

/** A last-activity group of one agent's live sessions (Today, Yesterday, Previous 7 days, a month). */
export interface DateNode {
  kind: "date";
  entry: OpenFolder;
  agentId: string;
  /** "today", "yesterday", "week" or "YYYY-MM" (see date-groups.ts). */
  key: string;
  label: string;
}

/** The "Show more" row at the end of a group that holds more sessions than it shows. */
export interface MoreNode {
  kind: "more";
  entry: OpenFolder;
  group: DateNode | ArchivedNode;
}

/** A group whose sessions are shown a page at a time. */
export type PagedGroup = DateNode | ArchivedNode;

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
  entry: OpenFolder;
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
