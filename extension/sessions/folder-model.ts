import { sessionKey, type AgentSessionRef } from "../../core/protocol/refs";
import { dateGroupKey } from "./row-keys";
import type { SessionChange, SessionListItem } from "../../core/runtime";
import { byUpdated } from "../../core/runtime/before-first-draw";
import type { OpenFolder } from "../folders/registry";
import { dateBucket, dateRanges } from "./date-groups";
import {
  type AgentNode,
  type ArchivedNode,
  type DateNode,
  type FolderNode,
  type MoreNode,
  type PagedGroup,
  type SessionNode,
} from "./nodes";

/** Sessions a group shows before its "Show more" row, and how many more each click adds. */
export const PAGE_SIZE = 50;

/** What a change made stale: one session row, the rows of one group, or the folder's agent level. */
export type Stale =
  { type: "session"; node: SessionNode } | { type: "group"; agentId: string; archived: boolean } | { type: "folder" };

const groupKey = (agentId: string, archived: boolean) => `${archived ? "a" : "l"}${agentId}`;
const newest = (a: SessionNode, b: SessionNode) => byUpdated(a.item, b.item);

/**
 * The sessions of one folder as the tree shows them, kept up to date item by item.
 * Each group's newest-first order is cached; an update that keeps a row in place (the
 * streaming session stays on top) makes only that row stale, so its cost does not
 * depend on how many sessions exist.
 */
export class FolderModel {
  readonly folderNode: FolderNode;
  private readonly nodes = new Map<string, SessionNode>();
  private readonly agentNodes = new Map<string, AgentNode>();
  private readonly archivedNodes = new Map<string, ArchivedNode>();
  /** Live + archived sessions per agent: an agent with none disappears. */
  private readonly perAgent = new Map<string, number>();
  private readonly order = new Map<string, SessionNode[]>();
  private buffered: SessionChange[] | undefined = [];
  private readonly dateNodes = new Map<string, DateNode>();
  private readonly moreNodes = new Map<PagedGroup, MoreNode>();
  /** Rows a group shows (a page, plus one per "Show more"). */
  private readonly limits = new Map<PagedGroup, number>();

  constructor(
    readonly entry: OpenFolder,
    private readonly now: () => number = Date.now,
  ) {
    this.folderNode = { kind: "folder", entry };
  }

  get loaded(): boolean {
    return this.buffered === undefined;
  }

  /** Only the first page is in (see `preview`): group sizes are not known yet. */
  get partial(): boolean {
    return this.previewed && !this.loaded;
  }

  private previewed = false;

  /**
   * The first page (the newest sessions, from one bounded pass), shown while the full list
   * is read. Changes keep being buffered for after the full list, which replaces these rows.
   */
  preview(items: readonly SessionListItem[]): void {
    if (this.loaded || this.previewed) return;
    this.previewed = true;
    for (const item of items) this.add(item);
  }

  /**
   * The full list; changes that arrived meanwhile are applied after it. A first page's
   * rows are replaced, each keeping its node (and what this window knows of its activity).
   */
  load(items: readonly SessionListItem[]): void {
    const shown = new Map(this.nodes);
    this.nodes.clear();
    this.perAgent.clear();
    this.order.clear();
    for (const item of items) this.add(item, shown.get(sessionKey(item)));
    const pending = this.buffered ?? [];
    this.buffered = undefined;
    for (const change of pending) this.apply(change);
  }

  /** Change-feed entries seen so far, and per session the count at its latest one (see `fedSince`). */
  private fed = 0;
  private readonly lastFed = new Map<string, number>();

  /** Taken before a session is read from disk, for `fedSince` after the read. */
  get feedMark(): number {
    return this.fed;
  }

  /**
   * Whether the change feed told of this session after `mark`: a disk read begun before
   * then may be older than what it told (round 7's CI: an archive's late folder event, read
   * while Unarchive ran, put the row back under Archived or took it away).
   */
  fedSince(agentId: string, sessionId: string, mark: number): boolean {
    return (this.lastFed.get(sessionKey({ agentId, sessionId })) ?? 0) > mark;
  }

  /** Applies one change-feed entry; before the first load it is kept for after it. */
  apply(change: SessionChange): Stale[] {
    this.lastFed.set(sessionKey(change), ++this.fed);
    if (this.buffered) {
      this.buffered.push(change);
      return [];
    }
    if (change.kind === "removed") return this.remove(change.agentId, change.sessionId);
    return change.item ? this.upsert(change.item) : [];
  }

  agents(): string[] {
    return [...this.perAgent.keys()].sort();
  }

  /** Agents get their own level only when more than one is used in the folder. */
  get showAgents(): boolean {
    return this.perAgent.size > 1;
  }

  agentNode(agentId: string): AgentNode {
    let node = this.agentNodes.get(agentId);
    if (!node) this.agentNodes.set(agentId, (node = { kind: "agent", entry: this.entry, agentId }));
    return node;
  }

  archivedNode(agentId: string): ArchivedNode {
    let node = this.archivedNodes.get(agentId);
    if (!node) this.archivedNodes.set(agentId, (node = { kind: "archived", entry: this.entry, agentId }));
    return node;
  }

  /** One agent's live sessions by last activity, newest group first (only groups that hold a session). */
  dateGroups(agentId: string): DateNode[] {
    const rows = this.sessions(agentId, false);
    return dateRanges(rows.length, (i) => rows[i]!.item.updatedAt, this.now()).map((r) =>
      this.dateNode(agentId, r.key, r.label),
    );
  }

  /**
   * Whether a date group is handed out open: the agent's newest group, when it is Today or Yesterday (an older
   * one stays closed, out of the way of the rest). One open group, since the workbench paints the tree's first
   * row only once the children of every open row it was handed came back: one round trip each.
   */
  opens(group: DateNode): boolean {
    const newest = this.sessions(group.agentId, false)[0];
    if (!newest || (group.key !== "today" && group.key !== "yesterday")) return false;
    return dateBucket(newest.item.updatedAt, this.now()).key === group.key;
  }

  /** The date group a live session is in now. */
  dateGroupOf(node: SessionNode): DateNode {
    const { key, label } = dateBucket(node.item.updatedAt, this.now());
    return this.dateNode(node.item.agentId, key, label);
  }

  /** A group's rows: its newest sessions up to its limit, then "Show more" when it holds more. */
  page(group: PagedGroup): (SessionNode | MoreNode)[] {
    const { rows, start, end } = this.groupRange(group);
    const shown = Math.min(end - start, this.limits.get(group) ?? PAGE_SIZE);
    const page: (SessionNode | MoreNode)[] = rows.slice(start, start + shown);
    if (start + shown < end) page.push(this.moreNode(group));
    return page;
  }

  /** How many sessions a group holds (the row's description). */
  groupSize(group: PagedGroup): number {
    const { start, end } = this.groupRange(group);
    return end - start;
  }

  /** "Show more": the group shows one more page. */
  showMore(group: PagedGroup): void {
    this.limits.set(group, (this.limits.get(group) ?? PAGE_SIZE) + PAGE_SIZE);
  }

  private groupRange(group: PagedGroup): { rows: SessionNode[]; start: number; end: number } {
    if (group.kind === "archived") {
      const rows = this.sessions(group.agentId, true);
      return { rows, start: 0, end: rows.length };
    }
    const rows = this.sessions(group.agentId, false);
    const range = dateRanges(rows.length, (i) => rows[i]!.item.updatedAt, this.now()).find((r) => r.key === group.key);
    return { rows, start: range?.start ?? 0, end: range?.end ?? 0 };
  }

  private dateNode(agentId: string, key: string, label: string): DateNode {
    const id = dateGroupKey(agentId, key);
    let node = this.dateNodes.get(id);
    if (!node) this.dateNodes.set(id, (node = { kind: "date", entry: this.entry, agentId, key, label }));
    return node;
  }

  private moreNode(group: PagedGroup): MoreNode {
    let node = this.moreNodes.get(group);
    if (!node) this.moreNodes.set(group, (node = { kind: "more", entry: this.entry, group }));
    return node;
  }

  /** Each agent's `live` newest live sessions and `archived` newest archived ones: what a first draw shows. */
  newest(live: number, archived: number): { live: AgentSessionRef[]; archived: AgentSessionRef[] } {
    const refs = (agentId: string, isArchived: boolean, count: number) =>
      this.sessions(agentId, isArchived)
        .slice(0, count)
        .map(({ item }) => ({ agentId: item.agentId, sessionId: item.sessionId }));
    const agents = this.agents();
    return {
      live: agents.flatMap((agentId) => refs(agentId, false, live)),
      archived: agents.flatMap((agentId) => refs(agentId, true, archived)),
    };
  }

  get(agentId: string, sessionId: string): SessionNode | undefined {
    return this.nodes.get(sessionKey({ agentId, sessionId }));
  }

  all(): IterableIterator<SessionNode> {
    return this.nodes.values();
  }

  /** One group's sessions, newest first (sorted once per change of order). */
  sessions(agentId: string, archived: boolean): SessionNode[] {
    const key = groupKey(agentId, archived);
    let rows = this.order.get(key);
    if (!rows) {
      rows = [];
      for (const node of this.nodes.values())
        if (node.item.agentId === agentId && node.item.archived === archived) rows.push(node);
      rows.sort(newest);
      rows.forEach((node, i) => (node.index = i));
      this.order.set(key, rows);
    }
    return rows;
  }

  upsert(item: SessionListItem): Stale[] {
    const existing = this.nodes.get(sessionKey(item));
    if (!existing) return this.add(item);
    const before = existing.item;
    existing.item = item;
    if (before.archived !== item.archived) {
      this.order.delete(groupKey(item.agentId, before.archived));
      this.order.delete(groupKey(item.agentId, item.archived));
      // The live group's parent also holds the "Archived" group, which may appear or go.
      return [
        { type: "group", agentId: item.agentId, archived: false },
        { type: "group", agentId: item.agentId, archived: true },
      ];
    }
    if (
      before.updatedAt === item.updatedAt ||
      (this.inPlace(existing) && this.sameGroup(before.updatedAt, item.updatedAt))
    )
      return [{ type: "session", node: existing }];
    this.order.delete(groupKey(item.agentId, item.archived));
    return [{ type: "group", agentId: item.agentId, archived: item.archived }];
  }

  remove(agentId: string, sessionId: string): Stale[] {
    const key = sessionKey({ agentId, sessionId });
    const node = this.nodes.get(key);
    if (!node) return [];
    this.nodes.delete(key);
    this.order.delete(groupKey(agentId, node.item.archived));
    const left = (this.perAgent.get(agentId) ?? 1) - 1;
    if (left > 0) {
      this.perAgent.set(agentId, left);
      return [
        { type: "group", agentId, archived: false },
        ...(node.item.archived ? [{ type: "group" as const, agentId, archived: true }] : []),
      ];
    }
    this.perAgent.delete(agentId);
    return [{ type: "folder" }];
  }

  private add(item: SessionListItem, reuse?: SessionNode): Stale[] {
    const node: SessionNode = reuse ?? {
      kind: "session",
      entry: this.entry,
      item,
      activity: { waiting: new Set(), interrupted: false, running: false },
      index: -1,
    };
    node.item = item;
    this.nodes.set(sessionKey(item), node);
    this.order.delete(groupKey(item.agentId, item.archived));
    const count = this.perAgent.get(item.agentId) ?? 0;
    this.perAgent.set(item.agentId, count + 1);
    if (count === 0) return [{ type: "folder" }];
    return [
      { type: "group", agentId: item.agentId, archived: false },
      ...(item.archived ? [{ type: "group" as const, agentId: item.agentId, archived: true }] : []),
    ];
  }

  private sameGroup(a: number, b: number): boolean {
    const now = this.now();
    return dateBucket(a, now).key === dateBucket(b, now).key;
  }

  /** True when the row's cached position is still right after its time changed (neighbours only). */
  private inPlace(node: SessionNode): boolean {
    const rows = this.order.get(groupKey(node.item.agentId, node.item.archived));
    if (!rows) return true;
    const i = node.index;
    if (rows[i] !== node) return false;
    const prev = rows[i - 1];
    const next = rows[i + 1];
    return (!prev || newest(prev, node) < 0) && (!next || newest(node, next) < 0);
  }
}
