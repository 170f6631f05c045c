// Over 350 lines: the full walk, the partial syncs, the inotify watches and the marker fence share one counted cache (entries, directory states, dirty names); split, they would share its internals.
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  unlinkSync,
  watch,
  writeFileSync,
  type FSWatcher,
  type Stats,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isIgnored, readRules, rootFrames, type IgnoreFrame } from "../tools/gitignore";
import { isProtectedName } from "../tools/sandbox";
import type { Manifest, ManifestEntry } from "./manifest";

/** One path whose manifest entry differs between two syncs: absent before (created) or after (deleted). */
export interface FolderChange {
  rel: string;
  before?: ManifestEntry;
  after?: ManifestEntry;
}

export interface FolderSync {
  changes: FolderChange[];
  /** Whether this sync walked the whole folder (first sync, or the watcher could not be trusted). */
  full: boolean;
}

export interface WatchedFolderOptions {
  /** Real path of the workspace root. */
  root: string;
  /** The host's excludes, read at each sync; a different function than last time means a full walk. */
  exclude?: () => ((rel: string) => boolean) | undefined;
  /** Watch directories between syncs (default: on Linux, on a local filesystem). Off: every sync is a full walk. */
  watch?: boolean;
  /** How long a sync waits for its own marker event before it distrusts the watcher (ms). */
  fenceTimeoutMs?: number;
}

/** What the counters say a sync cost: tests assert these, not times. */
export interface FolderCounters {
  fullWalks: number;
  partialSyncs: number;
  lstats: number;
  readdirs: number;
}

interface DirState {
  abs: string;
  /** The ignore rules in force for its entries (its own .gitignore included). */
  frames: IgnoreFrame[];
  files: Set<string>;
  subdirs: Set<string>;
  watcher?: FSWatcher;
}

// Filesystems whose changes all reach inotify from this machine (statfs f_type); NFS, SMB, FUSE, 9p… do not.
const LOCAL_FS = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x794c7630, 0xf2f52010, 0x2fc12fc1, 0x858458f6, 0x52654973, 0x3153464a,
  0xca451a4e,
]);
const MAX_WATCHED_DIRS = 20_000;

/** Events read at once beyond which inotify may have dropped some silently (a quarter of its queue). */
function overflowGuard(): number {
  try {
    return Math.max(
      256,
      Math.min(4096, Math.floor(Number(readFileSync("/proc/sys/fs/inotify/max_queued_events", "utf8")) / 4)),
    );
  } catch {
    return 1024;
  }
}

const entryOf = (st: Stats): ManifestEntry => ({
  size: st.size,
  mtimeMs: st.mtimeMs,
  ino: st.ino,
  link: st.isSymbolicLink(),
});
const sameEntry = (a: ManifestEntry, b: ManifestEntry) =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino && a.link === b.link;
const childOf = (dir: string, name: string) => (dir === "" ? name : `${dir}/${name}`);

/**
 * The folder's manifest (what `takeManifest` lists: .gitignore, .git/, .downcity/ and the
 * host's excludes honoured), kept warm between commands so a command costs what changed,
 * not a stat of every file. Each listed directory has an inotify watch (one `fs.watch`,
 * registered before the directory is read, so nothing slips between); an event marks a
 * name dirty and the next sync lstats only those. A sync first writes a marker file in a
 * watched folder of its own and waits for its event: inotify keeps one queue per process,
 * so every change made before the marker has been delivered by then.
 *
 * Whatever the watcher cannot vouch for is walked in full (the fallback): the first sync,
 * a watch error or a marker that does not arrive in time, a burst of events that could
 * have overflowed the queue, a changed .gitignore, .git/info/exclude or exclude setting,
 * a replaced root, a directory on another device, a filesystem inotify does not see
 * (network, FUSE) and any platform other than Linux. Files with more than one hard link
 * are re-stat'ed at every sync: a write through a link elsewhere raises no event here.
 */
export class WatchedFolder {
  readonly counters: FolderCounters = { fullWalks: 0, partialSyncs: 0, lstats: 0, readdirs: 0 };
  private entries: Manifest = new Map();
  private dirs = new Map<string, DirState>();
  private linked = new Set<string>();
  private dirty = new Map<string, Set<string> | "all">();
  /** Events delivered in the current read of the inotify queue (reset on the next turn of the loop). */
  private burst = 0;
  private burstReset: NodeJS.Immediate | undefined;
  private watching: boolean;
  private trusted = false;
  private lastExclude: ((rel: string) => boolean) | undefined;
  private rootIno = -1;
  private rootDev = -1;
  private infoExclude = "";
  private fenceDir: string | undefined;
  private fenceWatcher: FSWatcher | undefined;
  private fenceCount = 0;
  private fenceWaiter: { name: string; done: () => void } | undefined;
  private readonly overflowAt = overflowGuard();
  private closed = false;

  constructor(private readonly options: WatchedFolderOptions) {
    this.watching = options.watch ?? (process.platform === "linux" && isLocalFilesystem(options.root));
  }

  /** The manifest as of the last sync (read only). */
  get manifest(): ReadonlyMap<string, ManifestEntry> {
    return this.entries;
  }

  /** Whether the next sync may be partial (for tests and the bench). */
  get warm(): boolean {
    return this.watching && this.trusted;
  }

  /** Brings the manifest up to date with the disk; returns what changed since the last sync. */
  async sync(): Promise<FolderSync> {
    if (this.closed) throw new Error("the folder watcher is closed");
    const exclude = this.options.exclude?.();
    let full = !this.watching || !this.trusted || exclude !== this.lastExclude;
    if (!full) full = !(await this.fence());
    // The marker's wait delivered every earlier event: a watch error or a burst among them distrusts too.
    if (!full) full = !this.trusted || this.rootChanged() || this.infoExcludeChanged();
    const dirty = this.dirty;
    this.dirty = new Map();
    if (!full) for (const names of dirty.values()) if (names !== "all" && names.has(".gitignore")) full = true;
    const changes = new Map<string, FolderChange>();
    if (full) this.walkAll(exclude, changes);
    else this.syncDirty(dirty, exclude, changes);
    const out: FolderChange[] = [];
    for (const change of changes.values()) {
      if (change.before && change.after && sameEntry(change.before, change.after)) continue;
      if (!change.before && !change.after) continue;
      out.push(change);
    }
    out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
    return { changes: out, full };
  }

  /** Stops every watch and removes the marker folder. */
  close(): void {
    this.closed = true;
    if (this.burstReset) clearImmediate(this.burstReset);
    this.unwatchAll(this.dirs);
    this.fenceWatcher?.close();
    this.fenceWatcher = undefined;
    if (this.fenceDir) rmSync(this.fenceDir, { recursive: true, force: true });
    this.fenceDir = undefined;
  }

  // ---- the full walk ----

  private walkAll(exclude: ((rel: string) => boolean) | undefined, changes: Map<string, FolderChange>): void {
    this.counters.fullWalks++;
    const old = this.entries;
    const oldDirs = this.dirs;
    this.entries = new Map();
    this.dirs = new Map();
    this.linked = new Set();
    this.lastExclude = exclude;
    this.trusted = this.watching;
    const root = this.options.root;
    try {
      const st = lstatSync(root);
      this.rootIno = st.ino;
      this.rootDev = st.dev;
    } catch {
      this.rootIno = -1;
    }
    this.infoExclude = this.infoExcludeStamp();
    if (this.watching) this.ensureFence();
    this.addTree("", root, rootFrames(root), exclude, new Map());
    this.unwatchAll(oldDirs);
    for (const [rel, before] of old) note(changes, rel, before, this.entries.get(rel));
    for (const [rel, after] of this.entries) if (!old.has(rel)) note(changes, rel, undefined, after);
  }

  /** Lists `abs` and everything below it into the manifest, watching each directory before reading it. */
  private addTree(
    rel: string,
    abs: string,
    parentFrames: IgnoreFrame[],
    exclude: ((rel: string) => boolean) | undefined,
    changes: Map<string, FolderChange>,
  ): void {
    const stack = [{ rel, abs, frames: parentFrames }];
    while (stack.length > 0) {
      const at = stack.pop()!;
      let st: Stats;
      try {
        st = this.lstat(at.abs);
      } catch {
        this.detach(at.rel);
        continue;
      }
      if (!st.isDirectory()) {
        this.detach(at.rel);
        continue;
      }
      if (st.dev !== this.rootDev && this.watching) this.stopWatching(); // another filesystem inside: not vouched for
      const dir: DirState = { abs: at.abs, frames: at.frames, files: new Set(), subdirs: new Set() };
      this.dirs.set(at.rel, dir);
      this.watchDir(at.rel, dir);
      let names: import("node:fs").Dirent[];
      try {
        this.counters.readdirs++;
        names = readdirSync(at.abs, { withFileTypes: true });
      } catch {
        this.dropDir(at.rel, dir);
        this.detach(at.rel);
        continue; // unreadable or vanished: skipped, as the walk does
      }
      if (names.some((e) => e.name === ".gitignore" && e.isFile())) {
        const rules = readRules(join(at.abs, ".gitignore"));
        if (rules) dir.frames = [...at.frames, { base: at.rel, ig: rules }];
      }
      for (const entry of names) {
        const childRel = childOf(at.rel, entry.name);
        const childAbs = join(at.abs, entry.name);
        if (entry.isDirectory()) {
          if (!this.dirAllowed(childRel, entry.name, dir.frames, exclude)) continue;
          dir.subdirs.add(entry.name);
          stack.push({ rel: childRel, abs: childAbs, frames: dir.frames });
        } else if (entry.isFile() || entry.isSymbolicLink()) {
          if (!this.fileAllowed(childRel, dir.frames, exclude)) continue;
          let fst: Stats;
          try {
            fst = this.lstat(childAbs);
          } catch {
            continue; // vanished between readdir and lstat
          }
          if (fst.isDirectory()) continue; // replaced meanwhile: its own event follows
          this.setFile(dir, entry.name, childRel, fst, changes);
        }
      }
    }
  }

  // ---- the partial sync ----

  private syncDirty(
    dirty: Map<string, Set<string> | "all">,
    exclude: ((rel: string) => boolean) | undefined,
    changes: Map<string, FolderChange>,
  ): void {
    this.counters.partialSyncs++;
    for (const rel of this.linked) {
      const slash = rel.lastIndexOf("/");
      const dirRel = slash < 0 ? "" : rel.slice(0, slash);
      const names = dirty.get(dirRel) ?? new Set<string>();
      if (names !== "all") names.add(rel.slice(slash + 1));
      dirty.set(dirRel, names);
    }
    for (const [dirRel, names] of dirty) {
      const dir = this.dirs.get(dirRel);
      if (!dir) continue; // removed with a directory above it
      if (names === "all") {
        let listed: string[];
        try {
          this.counters.readdirs++;
          listed = readdirSync(dir.abs);
        } catch {
          listed = [];
        }
        for (const name of new Set([...listed, ...dir.files, ...dir.subdirs]))
          this.rescan(dirRel, dir, name, exclude, changes);
      } else for (const name of names) this.rescan(dirRel, dir, name, exclude, changes);
    }
  }

  /** Re-reads one name of a watched directory: a file's entry, or a directory's whole subtree when it is new. */
  private rescan(
    dirRel: string,
    dir: DirState,
    name: string,
    exclude: ((rel: string) => boolean) | undefined,
    changes: Map<string, FolderChange>,
  ): void {
    if (this.dirs.get(dirRel) !== dir) return;
    const rel = childOf(dirRel, name);
    const abs = join(dir.abs, name);
    let st: Stats | undefined;
    try {
      st = this.lstat(abs);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) {
      if (dir.files.has(name)) this.removeFile(dir, name, rel, changes);
      // An event on the directory's own name (made, removed, moved, its mode changed): read it
      // again whole; it may be another directory under the same name, even the same inode number.
      if (dir.subdirs.has(name)) this.removeTree(dir, name, rel, changes);
      if (!this.dirAllowed(rel, name, dir.frames, exclude)) return;
      dir.subdirs.add(name);
      this.addTree(rel, abs, dir.frames, exclude, changes);
    } else if (st && (st.isFile() || st.isSymbolicLink())) {
      if (dir.subdirs.has(name)) this.removeTree(dir, name, rel, changes);
      if (this.fileAllowed(rel, dir.frames, exclude)) this.setFile(dir, name, rel, st, changes);
    } else {
      if (dir.files.has(name)) this.removeFile(dir, name, rel, changes);
      if (dir.subdirs.has(name)) this.removeTree(dir, name, rel, changes);
    }
  }

  // ---- the manifest ----

  private setFile(dir: DirState, name: string, rel: string, st: Stats, changes: Map<string, FolderChange>): void {
    const after = entryOf(st);
    note(changes, rel, this.entries.get(rel), after);
    this.entries.set(rel, after);
    dir.files.add(name);
    if (st.nlink > 1 && !st.isSymbolicLink()) this.linked.add(rel);
    else this.linked.delete(rel);
  }

  private removeFile(dir: DirState, name: string, rel: string, changes: Map<string, FolderChange>): void {
    note(changes, rel, this.entries.get(rel), undefined);
    this.entries.delete(rel);
    this.linked.delete(rel);
    dir.files.delete(name);
  }

  /** Forgets a directory and everything below it (its files are deleted from the manifest). */
  private removeTree(parent: DirState, name: string, rel: string, changes: Map<string, FolderChange>): void {
    parent.subdirs.delete(name);
    const stack = [rel];
    while (stack.length > 0) {
      const at = stack.pop()!;
      const dir = this.dirs.get(at);
      if (!dir) continue;
      for (const file of [...dir.files]) this.removeFile(dir, file, childOf(at, file), changes);
      for (const sub of dir.subdirs) stack.push(childOf(at, sub));
      this.dropDir(at, dir);
    }
  }

  /** A path that turned out not to be a readable directory is no subdirectory of its parent. */
  private detach(rel: string): void {
    if (rel === "") return;
    const slash = rel.lastIndexOf("/");
    this.dirs.get(slash < 0 ? "" : rel.slice(0, slash))?.subdirs.delete(rel.slice(slash + 1));
  }

  private dropDir(rel: string, dir: DirState): void {
    dir.watcher?.close();
    dir.watcher = undefined;
    if (this.dirs.get(rel) === dir) this.dirs.delete(rel);
  }

  private dirAllowed(rel: string, name: string, frames: IgnoreFrame[], exclude?: (rel: string) => boolean): boolean {
    return !isProtectedName(name) && !isIgnored(frames, rel, true) && !exclude?.(rel);
  }

  private fileAllowed(rel: string, frames: IgnoreFrame[], exclude?: (rel: string) => boolean): boolean {
    return !isIgnored(frames, rel, false) && !exclude?.(rel);
  }

  private lstat(abs: string): Stats {
    this.counters.lstats++;
    return lstatSync(abs);
  }

  // ---- the watcher ----

  private watchDir(rel: string, dir: DirState): void {
    if (!this.watching) return;
    if (this.dirs.size > MAX_WATCHED_DIRS) {
      this.stopWatching();
      return;
    }
    try {
      const watcher = watch(dir.abs, { persistent: false }, (_event, name) => {
        this.countEvent();
        if (this.dirs.get(rel) !== dir) return; // a stale watch of a directory since removed
        if (typeof name !== "string" || name === "") this.dirty.set(rel, "all");
        else {
          const names = this.dirty.get(rel);
          if (names === "all") return;
          if (names) names.add(name);
          else this.dirty.set(rel, new Set([name]));
        }
      });
      watcher.on("error", () => (this.trusted = false));
      dir.watcher = watcher;
    } catch {
      this.stopWatching(); // out of inotify watches, or no watching here: full walks from now on
    }
  }

  /**
   * libuv reads the whole inotify queue in one go and drops its overflow marker, so a
   * queue that overflowed shows as one read of at least its capacity: a read of a
   * quarter of that distrusts the watcher (the next sync walks the folder).
   */
  private countEvent(): void {
    if (++this.burst > this.overflowAt) this.trusted = false;
    this.burstReset ??= setImmediate(() => {
      this.burst = 0;
      this.burstReset = undefined;
    });
  }

  private stopWatching(): void {
    this.watching = false;
    this.trusted = false;
    this.unwatchAll(this.dirs);
  }

  private unwatchAll(dirs: Map<string, DirState>): void {
    for (const dir of dirs.values()) {
      dir.watcher?.close();
      dir.watcher = undefined;
    }
  }

  private ensureFence(): void {
    if (this.fenceWatcher) return;
    try {
      this.fenceDir = mkdtempSync(join(tmpdir(), "downcity-fence-"));
      this.fenceWatcher = watch(this.fenceDir, { persistent: false }, (_event, name) => {
        const waiter = this.fenceWaiter;
        if (waiter && name === waiter.name) {
          this.fenceWaiter = undefined;
          waiter.done();
        }
      });
      this.fenceWatcher.on("error", () => (this.trusted = false));
    } catch {
      this.stopWatching();
    }
  }

  /** Writes a marker and waits (bounded) for its event: true when every earlier event has been delivered. */
  private fence(): Promise<boolean> {
    const dir = this.fenceDir;
    if (!dir || !this.fenceWatcher) return Promise.resolve(false);
    const name = `m${++this.fenceCount}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.fenceWaiter = undefined;
        resolve(false);
      }, this.options.fenceTimeoutMs ?? 2000);
      this.fenceWaiter = {
        name,
        done: () => {
          clearTimeout(timer);
          try {
            unlinkSync(join(dir, name));
          } catch {
            // already gone: nothing to tidy
          }
          resolve(true);
        },
      };
      try {
        writeFileSync(join(dir, name), "");
      } catch {
        clearTimeout(timer);
        this.fenceWaiter = undefined;
        resolve(false);
      }
    });
  }

  private rootChanged(): boolean {
    try {
      return lstatSync(this.options.root).ino !== this.rootIno;
    } catch {
      return true;
    }
  }

  /** .git/ is not watched, but its info/exclude rules apply to the whole folder. */
  private infoExcludeStamp(): string {
    try {
      const st = lstatSync(join(this.options.root, ".git", "info", "exclude"));
      return `${st.ino}:${st.size}:${st.mtimeMs}`;
    } catch {
      return "";
    }
  }

  private infoExcludeChanged(): boolean {
    return this.infoExcludeStamp() !== this.infoExclude;
  }
}

/** Merges a change into the sync's record: the first before and the last after win. */
function note(
  changes: Map<string, FolderChange>,
  rel: string,
  before: ManifestEntry | undefined,
  after: ManifestEntry | undefined,
): void {
  const known = changes.get(rel);
  if (known) {
    if (after) known.after = after;
    else delete known.after;
  } else changes.set(rel, { rel, ...(before ? { before } : {}), ...(after ? { after } : {}) });
}

function isLocalFilesystem(root: string): boolean {
  try {
    return LOCAL_FS.has(statfsSync(root).type);
  } catch {
    return false;
  }
}
