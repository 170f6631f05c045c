// Over 350 lines: the tree provider and its coalesced, row-precise refreshes (the watcher paths, the change feed, the first page) share one set of pending nodes.
import { join } from "node:path";
import * as vscode from "vscode";
import type { AgentEvent } from "../../core/protocol";
import type { DamagedFolder, SessionChange } from "../../core/runtime";
import { hop } from "../../core/runtime/before-first-draw";
import type { OpenFolder, FolderRegistry } from "../folders/registry";
import { DamagedFolders, damagedTreeItem, type DamagedFolderNode } from "./damaged";
import { untilMidnight } from "./date-groups";
import { FolderModel, PAGE_SIZE, type Stale } from "./folder-model";
import { sessionTreeItem } from "./items";
import type { SessionNode, SessionTreeNode } from "./nodes";
import { firstRows, type OffThreadPages } from "./first-rows";
import type { RememberedFirstRows } from "./remembered-rows";

/** Other windows' and the CLI's writes: every session's meta.json, live or archived. */
export const META_GLOB = ".downcity/agents/*/{sessions,archived}/*/meta.json";
/**
 * Their archive, unarchive and delete: a session folder renamed between areas (or aside
 * to be removed) is one event for the folder, none for the meta.json inside it.
 */
export const SESSION_DIR_GLOB = ".downcity/agents/*/{sessions,archived}/*";
/** An area folder made by the move into it (an agent's first archive): the watcher reports the area alone, not the session inside. */
export const AREA_DIR_GLOB = ".downcity/agents/*/{sessions,archived}";
/** Changes within this window become one refresh. */
export const COALESCE_MS = 100;
/**
 * How long a refresh waits at most for the workbench to ask for the children of the open
 * groups it was handed (a group the user had collapsed is never asked for).
 */
export const DRAW_WAIT_MS = 2_000;
/** The first page of each agent read before the full list: a page of the group open at first (Today, or else Yesterday), and one to tell "Show more". */
export const FIRST_ROWS = PAGE_SIZE + 1;

export interface SessionsTreeOptions {
  coalesceMs?: number;
  /** See DRAW_WAIT_MS; 0: refreshes never wait (tests that play no workbench). */
  drawWaitMs?: number;
  log?: (line: string) => void;
  /** The clock the date groups and relative times read (tests fix it). */
  now?: () => number;
  /** The sessions each folder showed first in the last window: drawn before the first page when there are some. */
  remembered?: RememberedFirstRows;
  /** A folder's first pages on a worker thread (its root, the real path), when worth one: off-thread-pages.ts. */
  offThread?: (root: string) => OffThreadPages;
}

/**
 * The Sessions view: one full list per folder when it appears, then the runtime's change
 * feed, its agent events (approval and running state) and a meta.json watcher. Each
 * change updates one item in its folder model; changes are coalesced into one
 * `onDidChangeTreeData` naming only the stale elements.
 */
export class SessionsTree implements vscode.TreeDataProvider<SessionTreeNode>, vscode.Disposable {
  private readonly models = new Map<OpenFolder, FolderModel>();
  private readonly damaged = new Map<OpenFolder, DamagedFolders>();
  private readonly perFolder = new Map<OpenFolder, vscode.Disposable[]>();
  private readonly loads = new Map<OpenFolder, Promise<void>>();
  private readonly firstLoads = new Map<OpenFolder, Promise<void>>();
  /** Folders whose rows were handed out from their first page only: redrawn when the full list is in. */
  private readonly drawnPartial = new Set<FolderModel>();
  private readonly changed = new vscode.EventEmitter<SessionTreeNode | SessionTreeNode[] | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly pendingNodes = new Set<SessionTreeNode>();
  private pendingRoot = false;
  private readonly pendingPaths = new Map<OpenFolder, Set<string>>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * Open groups handed to the workbench whose children it has not asked for yet. A refresh
   * drops the handles of what it redraws, so one fired in that gap makes VS Code log
   * "No tree item with id … found" for the group it then asks about: refreshes wait for these.
   */
  private readonly awaitingDraw = new Set<SessionTreeNode>();
  private drawWait: ReturnType<typeof setTimeout> | undefined;
  private readonly onDrawn: (() => void)[] = [];
  /** Full lists waiting for the view: each starts its DRAW_WAIT_MS bound when the workbench first asks for the root. */
  private readonly onRootAsked: (() => void)[] = [];
  /** The workbench got the root's rows: from then on, an empty awaitingDraw means the first rows are drawn. */
  private rootAnswered = false;
  /** The workbench asked for the root: the view is open and drawing (see firstDrawn). */
  private rootAsked = false;
  /** A command asked for the full list (`ready`): it starts without waiting for a draw. */
  private fullListWanted = false;
  private firstDrawnResolve!: () => void;
  private readonly firstDrawnOnce = new Promise<void>((resolve) => (this.firstDrawnResolve = resolve));
  private midnight: ReturnType<typeof setTimeout> | undefined;
  private readonly subscription: vscode.Disposable;
  private readonly coalesceMs: number;
  private readonly drawWaitMs: number;
  private readonly now: () => number;
  private readonly sessionChanged = new vscode.EventEmitter<{ entry: OpenFolder; change: SessionChange }>();
  /**
   * Every change the tree applies to a session, from this window's store or another
   * process's meta.json: the chat views follow the session they show through it.
   */
  readonly onDidChangeSession = this.sessionChanged.event;

  constructor(
    private readonly runtimes: FolderRegistry,
    private readonly options: SessionsTreeOptions = {},
  ) {
    this.coalesceMs = options.coalesceMs ?? COALESCE_MS;
    this.drawWaitMs = options.drawWaitMs ?? DRAW_WAIT_MS;
    this.now = options.now ?? Date.now;
    runtimes.all().forEach((entry) => this.attach(entry));
    this.subscription = runtimes.onDidChange(({ added, removed }) => {
      removed.forEach((entry) => this.detach(entry));
      added.forEach((entry) => this.attach(entry));
      this.stale(undefined);
    });
    this.scheduleMidnight();
  }

  /** At local midnight Today becomes Yesterday (and so on): the whole tree is regrouped, and its relative times redrawn. */
  private scheduleMidnight(): void {
    this.midnight = setTimeout(() => {
      this.stale(undefined);
      this.scheduleMidnight();
    }, untilMidnight(this.now()));
    // A regroup hours away must never keep a process (a test run, a host shutting down) alive.
    this.midnight.unref?.();
  }

  /** Resolves when every folder's full list is in; a full list still waiting for the first draw starts now. */
  get ready(): Promise<void> {
    this.fullListWanted = true;
    for (const go of this.onDrawn.splice(0)) go();
    return Promise.all(this.loads.values()).then(() => {});
  }

  /**
   * Resolves once the workbench has asked for the root and for every open row it was handed (its first rows are on
   * their way to the screen); after `askMs` if the root has not been asked for by then (a collapsed or hidden view
   * never asks, and must not cost what waits on it more than that); after `drawMs` at most. What would compete with
   * the first draw (the chat's document) waits for it.
   */
  firstDrawn(askMs: number, drawMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(ask);
        clearTimeout(draw);
        resolve();
      };
      const ask = setTimeout(() => this.rootAsked || done(), askMs);
      const draw = setTimeout(done, drawMs);
      ask.unref?.();
      draw.unref?.();
      void this.firstDrawnOnce.then(done);
    });
  }

  /** Resolves when every folder shows at least its first page (the full list may follow). */
  get firstRows(): Promise<void> {
    return Promise.all(this.firstLoads.values()).then(() => {});
  }

  // ------------------------------------------------------------------ data provider

  async getChildren(node?: SessionTreeNode): Promise<SessionTreeNode[]> {
    hop(`tree asked ${node?.kind ?? "root"}`);
    if (!node && !this.rootAsked) {
      this.rootAsked = true;
      for (const bound of this.onRootAsked.splice(0)) bound();
    }
    const children = await this.childrenOf(node);
    hop(`tree answered ${node?.kind ?? "root"} ${children.length}`);
    if (!node) this.rootAnswered = true;
    for (const child of children) if (this.opensExpanded(child)) this.awaitingDraw.add(child);
    if (node) this.awaitingDraw.delete(node);
    if (this.awaitingDraw.size === 0 && this.rootAnswered) this.drawSettled();
    return children;
  }

  /** Whether a row is handed out expanded (the workbench then asks for its children at once). */
  private opensExpanded(node: SessionTreeNode): boolean {
    if (node.kind === "folder" || node.kind === "agent") return true;
    return node.kind === "date" && this.models.get(node.entry)?.opens(node) === true;
  }

  /** The workbench asked for the children of every open row it was handed: what waited for that may go. */
  private drawSettled(): void {
    this.firstDrawnResolve();
    if (this.drawWait) {
      clearTimeout(this.drawWait);
      this.drawWait = undefined;
      this.schedule();
    }
    for (const go of this.onDrawn.splice(0)) go();
  }

  /**
   * Resolves once the workbench has asked for the root and then for the open rows it was handed, bounded by
   * DRAW_WAIT_MS from the root's request; at once when waits are off or a command wants the full list. The root's
   * request comes a round trip after the view is registered: a first page listed before it must not let the full
   * list start (traced at 10,000 sessions: its reads then shared the host's thread with the Today round trip). A view
   * never opened never asks: the extension activates after start-up, and a window that does not open the Sessions
   * view keeps the first page only, without 10,000 meta.json reads.
   */
  private whenDrawn(): Promise<void> {
    return new Promise((resolve) =>
      // After the root's own continuation on the same first page (it hands out the rows to wait for).
      setImmediate(() => {
        const drawn = this.rootAnswered && this.awaitingDraw.size === 0;
        if (this.drawWaitMs === 0 || this.fullListWanted || drawn) return resolve();
        let timer: ReturnType<typeof setTimeout> | undefined;
        let gone = false;
        const go = () => ((gone = true), clearTimeout(timer), resolve());
        const bound = () => {
          if (gone) return;
          timer = setTimeout(go, this.drawWaitMs);
          timer.unref?.();
        };
        if (this.rootAsked) bound();
        else this.onRootAsked.push(bound);
        this.onDrawn.push(go);
      }),
    );
  }

  private async childrenOf(node?: SessionTreeNode): Promise<SessionTreeNode[]> {
    if (!node) {
      await this.firstRows;
      const models = [...this.models.values()].sort((a, b) => a.entry.folder.index - b.entry.folder.index);
      for (const m of models) if (m.partial) this.drawnPartial.add(m);
      if (models.length === 1) return this.folderChildren(models[0]!);
      return models.map((m) => m.folderNode);
    }
    const model = this.models.get(node.entry);
    if (!model) return [];
    if (model.partial) this.drawnPartial.add(model);
    switch (node.kind) {
      case "folder":
        return this.folderChildren(model);
      case "damagedGroup":
        return this.damaged.get(node.entry)?.rows() ?? [];
      case "damagedFolder":
        return [];
      case "agent":
        return this.agentChildren(model, node.agentId);
      case "archived":
      case "date":
        return model.page(node);
      case "session":
      case "more":
        return [];
    }
  }

  getTreeItem(node: SessionTreeNode): vscode.TreeItem {
    if (node.kind === "damagedGroup" || node.kind === "damagedFolder")
      return damagedTreeItem(node, this.damaged.get(node.entry));
    return sessionTreeItem(node, this.models.get(node.entry), this.now());
  }

  getParent(node: SessionTreeNode): SessionTreeNode | undefined {
    const model = this.models.get(node.entry);
    if (!model || node.kind === "folder") return undefined;
    if (node.kind === "damagedFolder") return this.damaged.get(node.entry)?.group;
    if (node.kind === "damagedGroup") return this.models.size > 1 ? model.folderNode : undefined;
    if (node.kind === "more") return node.group;
    if (node.kind === "session")
      return node.item.archived ? model.archivedNode(node.item.agentId) : model.dateGroupOf(node);
    if (node.kind !== "agent" && model.showAgents) return model.agentNode(node.agentId);
    return this.models.size > 1 ? model.folderNode : undefined;
  }

  /** "Show more" on a group's last row: one more page of its sessions, the rest of the tree as it is. */
  showMore(node: SessionTreeNode | undefined): void {
    if (node?.kind !== "more") return;
    const model = this.models.get(node.entry);
    if (!model) return;
    model.showMore(node.group);
    this.stale(node.group);
  }

  // ------------------------------------------------------------------ queries for commands

  /** Every known session of every folder, newest first. */
  sessions(filter: { archived?: boolean; running?: boolean } = {}): SessionNode[] {
    const rows: SessionNode[] = [];
    for (const model of this.models.values()) {
      for (const node of model.all()) {
        if (filter.archived !== undefined && node.item.archived !== filter.archived) continue;
        if (filter.running && !(node.item.running || node.activity.running)) continue;
        rows.push(node);
      }
    }
    return rows.sort((a, b) => b.item.updatedAt - a.item.updatedAt);
  }

  find(entry: OpenFolder, agentId: string, sessionId: string): SessionNode | undefined {
    return this.models.get(entry)?.get(agentId, sessionId);
  }

  // ------------------------------------------------------------------ feeding

  private folderChildren(model: FolderModel): SessionTreeNode[] {
    const rows: SessionTreeNode[] = [];
    if (model.showAgents) rows.push(...model.agents().map((id) => model.agentNode(id)));
    else {
      const [only] = model.agents();
      if (only !== undefined) rows.push(...this.agentChildren(model, only));
    }
    // Issue 21: what a list left out, at the bottom, only while there is some.
    const damaged = this.damaged.get(model.entry);
    if (damaged && damaged.size > 0) rows.push(damaged.group);
    return rows;
  }

  /** Removes a damaged folder's row (it was deleted, or became a session). */
  forgetDamaged(node: DamagedFolderNode): void {
    const model = this.models.get(node.entry);
    if (model && this.damaged.get(node.entry)?.remove(node.folder))
      this.stale(this.models.size > 1 ? model.folderNode : undefined);
  }

  /** An agent's sessions by last activity (lazy: a group's rows are asked for when it is expanded), then Archived. */
  private agentChildren(model: FolderModel, agentId: string): SessionTreeNode[] {
    const groups: SessionTreeNode[] = model.dateGroups(agentId);
    return model.sessions(agentId, true).length > 0 ? [...groups, model.archivedNode(agentId)] : groups;
  }

  private attach(entry: OpenFolder): void {
    const model = new FolderModel(entry, this.now);
    this.models.set(entry, model);
    const { runtime, folder } = entry;
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, META_GLOB));
    const onPath = (uri: vscode.Uri) => this.queuePath(entry, uri.fsPath);
    // A folder that came or went: its meta.json is read (or found gone) like a changed one.
    const dirs = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(folder, SESSION_DIR_GLOB),
      false,
      true,
      false,
    );
    const onDir = (uri: vscode.Uri) => this.queuePath(entry, join(uri.fsPath, "meta.json"));
    const areas = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(folder, AREA_DIR_GLOB),
      false,
      true,
      true,
    );
    const onArea = (uri: vscode.Uri) =>
      void Promise.resolve(vscode.workspace.fs.readDirectory(uri)).then(
        (children) => {
          for (const [name, type] of children)
            if (type === vscode.FileType.Directory) onDir(vscode.Uri.joinPath(uri, name));
        },
        () => undefined, // gone again: nothing to show
      );
    const offChange = runtime.onChange((change) => this.onChange(model, change));
    const offEvent = runtime.onEvent((event) => this.onAgentEvent(model, event));
    this.perFolder.set(entry, [
      watcher,
      watcher.onDidCreate(onPath),
      watcher.onDidChange(onPath),
      watcher.onDidDelete(onPath),
      dirs,
      dirs.onDidCreate(onDir),
      dirs.onDidDelete(onDir),
      areas,
      areas.onDidCreate(onArea),
      new vscode.Disposable(offChange),
      new vscode.Disposable(offEvent),
    ]);
    const damaged = new DamagedFolders(entry);
    this.damaged.set(entry, damaged);
    // Each log's existence is checked (one check per session), so a folder without one shows only under "Damaged".
    const onDamaged = (d: DamagedFolder) => damaged.add(d);
    // The newest sessions of each agent first, from one bounded pass (Today or else Yesterday opens with a page),
    // and each agent's newest archived ones: the first rows have the full list's shape (agent level,
    // date groups, Archived), and at 10,000 sessions they do not wait for 10,000 meta.json reads. From a
    // workspace's second window on, the sessions the last window showed first, without the pass (first-rows.ts).
    const first = firstRows(
      runtime,
      this.options.remembered?.get(entry.key),
      { live: FIRST_ROWS, archived: PAGE_SIZE + 1 },
      this.options.offThread?.(entry.root),
    ).then(
      ({ items, from }) => (hop(`tree first page listed${from === "pass" ? "" : ` (${from})`}`), model.preview(items)),
      () => {}, // the full list reports it
    );
    // The full list waits for the workbench to draw the first rows: its 10,000 meta.json reads would share the
    // host's one thread with the requests that draw them.
    const load = first
      .then(() => this.whenDrawn())
      .then(() => {
        hop("tree full list starts");
        return Promise.all([
          runtime.list({ verifyLogs: true, onDamaged }),
          runtime.list({ archived: true, verifyLogs: true, onDamaged }),
        ]);
      })
      .then(
        ([live, archived]) => (hop("tree full list in"), model.load([...live, ...archived])),
        (error: Error) => {
          this.options.log?.(`listing the sessions of ${folder.name} failed: ${error.message}`);
          model.load([]);
        },
      )
      .then(() => {
        // Rows drawn from the first page are redrawn from the full list (group sizes, older groups, Archived).
        if (this.drawnPartial.delete(model) && this.models.get(entry) === model)
          this.markStale(model, [{ type: "folder" }]);
        this.remember(model);
      });
    this.firstLoads.set(entry, first);
    this.loads.set(entry, load);
  }

  private detach(entry: OpenFolder): void {
    this.perFolder.get(entry)?.forEach((d) => d.dispose());
    this.perFolder.delete(entry);
    const model = this.models.get(entry);
    if (model) this.drawnPartial.delete(model);
    this.models.delete(entry);
    this.damaged.delete(entry);
    this.loads.delete(entry);
    this.firstLoads.delete(entry);
    this.pendingPaths.delete(entry);
  }

  private onChange(model: FolderModel, change: SessionChange): void {
    this.markStale(model, model.apply(change));
    this.sessionChanged.fire({ entry: model.entry, change });
    this.remember(model);
  }

  /** Keeps which sessions a first draw of this folder shows, for the next window (once the full list is in). */
  private remember(model: FolderModel): void {
    if (model.loaded) this.options.remembered?.remember(model.entry.key, () => model.newest(FIRST_ROWS, PAGE_SIZE + 1));
  }

  private onAgentEvent(model: FolderModel, event: AgentEvent): void {
    // Streaming text and log appends reach the tree through the change feed (throttled by the store).
    if (
      event.type === "session-event" ||
      event.type === "draft" ||
      event.type === "tool-output" ||
      event.type === "usage"
    )
      return;
    const node = model.get(event.agentId, event.sessionId);
    if (!node) return;
    const { activity } = node;
    const before = `${activity.running}${activity.interrupted}${activity.waiting.size}`;
    switch (event.type) {
      case "turn-started":
        activity.running = true;
        activity.interrupted = false;
        break;
      case "turn-ended":
        activity.running = false;
        activity.waiting.clear();
        activity.interrupted = event.reason === "cancelled" || event.reason === "error";
        break;
      case "approval-requested":
        activity.waiting.add(event.toolCallId);
        break;
      case "approval-resolved":
      case "tool-finished":
        activity.waiting.delete(event.toolCallId);
        break;
      default:
        return;
    }
    if (`${activity.running}${activity.interrupted}${activity.waiting.size}` !== before)
      this.markStale(model, [{ type: "session", node }]);
  }

  /** A meta.json another process wrote: read that one file when the burst settles. */
  private queuePath(entry: OpenFolder, path: string): void {
    let paths = this.pendingPaths.get(entry);
    if (!paths) this.pendingPaths.set(entry, (paths = new Set()));
    paths.add(path);
    this.schedule();
  }

  private async readPaths(): Promise<void> {
    const batches = [...this.pendingPaths];
    this.pendingPaths.clear();
    for (const [entry, paths] of batches) {
      const model = this.models.get(entry);
      if (!model) continue;
      for (const path of paths) {
        const mark = model.feedMark;
        const found = await entry.runtime.storedItemAt(path).catch(() => undefined);
        if (!found || this.models.get(entry) !== model) continue;
        // This window's own change came while the file was read: the feed's word is newer.
        if (model.fedSince(found.agentId, found.sessionId, mark)) continue;
        const known = model.get(found.agentId, found.sessionId);
        // Hot wins: this window's own sessions come from the change feed.
        if (known?.item.hot) continue;
        if (
          found.item &&
          this.damaged.get(entry)?.remove({ agentId: found.agentId, archived: found.archived, folder: found.folder })
        )
          this.stale(this.models.size > 1 ? model.folderNode : undefined);
        const ids = { agentId: found.agentId, sessionId: found.sessionId };
        if (found.item) {
          this.markStale(model, model.upsert(found.item));
          this.sessionChanged.fire({
            entry,
            change: { kind: known ? "updated" : "created", ...ids, item: found.item },
          });
        } else if (known && known.item.archived === found.archived) {
          this.markStale(model, model.remove(found.agentId, found.sessionId));
          this.sessionChanged.fire({ entry, change: { kind: "removed", ...ids } });
        }
      }
    }
  }

  private markStale(model: FolderModel, stale: readonly Stale[]): void {
    for (const s of stale) {
      if (s.type === "session") this.stale(s.node);
      else if (s.type === "group" && s.archived) this.stale(model.archivedNode(s.agentId));
      else if (s.type === "group" && model.showAgents) this.stale(model.agentNode(s.agentId));
      else this.stale(this.models.size > 1 ? model.folderNode : undefined);
    }
  }

  private stale(node: SessionTreeNode | undefined): void {
    if (node) this.pendingNodes.add(node);
    else this.pendingRoot = true;
    this.schedule();
  }

  private schedule(): void {
    if (this.drawWait) return;
    this.timer ??= setTimeout(() => void this.flush(), this.coalesceMs);
  }

  private async flush(): Promise<void> {
    this.timer = undefined;
    if (this.pendingPaths.size > 0) await this.readPaths();
    if (!this.pendingRoot && this.pendingNodes.size === 0) return;
    if (this.awaitingDraw.size > 0 && this.drawWaitMs > 0) {
      // The workbench is still drawing what it was handed: the refresh goes once it asked (bounded).
      this.drawWait ??= setTimeout(() => {
        this.drawWait = undefined;
        this.awaitingDraw.clear();
        this.schedule();
      }, this.drawWaitMs);
      return;
    }
    // A root refresh redraws everything: the workbench asks again from the root.
    hop(`tree refresh ${this.pendingRoot ? "root" : this.pendingNodes.size}`);
    if (this.pendingRoot) {
      this.awaitingDraw.clear();
      this.changed.fire(undefined);
    } else this.changed.fire([...this.pendingNodes]);
    this.pendingRoot = false;
    this.pendingNodes.clear();
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.drawWait);
    clearTimeout(this.midnight);
    this.subscription.dispose();
    [...this.perFolder.keys()].forEach((entry) => this.detach(entry));
    this.changed.dispose();
    this.sessionChanged.dispose();
  }
}
