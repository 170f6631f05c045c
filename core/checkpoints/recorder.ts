import { randomBytes } from "node:crypto";
import { unlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ContentRef, FileChange, ToolCheckpoint } from "../protocol";
import { displayPath, resolveInsideRoot } from "../tools/sandbox";
import type { ToolKind } from "../tools/types";
import { BlobStore } from "./blob-store";
import { blobsAt, findGitRepo, snapshotTree, type GitRepo } from "./git-snapshot";
import { checkpointPaths } from "./layout";
import { WatchedFolder, type FolderChange, type FolderSync } from "./folder-watch";
import { readWorkspaceFile } from "./read-file";

export interface CheckpointRecorderOptions {
  /** Real path of the workspace root. */
  root: string;
  /** The session's folder; checkpoints live in its `checkpoints/`. */
  sessionDir: string;
  /** Makes the session's folder exist before the first blob is written (the log is published first). */
  prepare?: () => Promise<void>;
  /** The host's file excludes (files.exclude), read once per manifest (settings may change). */
  exclude?: () => (rel: string) => boolean;
  /** Watch the folder between commands (default: where inotify can be trusted); off, each command walks it. */
  watch?: boolean;
}

/** Beyond this many files changed between two commands, one private-index snapshot is cheaper than a blob each. */
const RESNAPSHOT_AFTER = 100;

/** One approved call being recorded: `finish` after it ran says what it changed. */
export interface PendingCheckpoint {
  finish(): Promise<ToolCheckpoint>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const unknownRef = (reason: string): ContentRef => ({ kind: "unknown", reason });

/**
 * Records what each edit and command changes, for restore (issue 24). An edit tool's
 * file is kept before and after as blobs; a command is bracketed by two syncs of a
 * watched manifest (and, in a git folder, a private snapshot of the state before it: a
 * private-index tree plus a blob of each file changed since), so the files it created,
 * changed or deleted are known and, where their earlier content is known, restorable.
 */
export class CheckpointRecorder {
  readonly blobs: BlobStore;
  readonly gitObjects: string;
  private repo: Promise<GitRepo | undefined> | undefined;
  private prepared: Promise<void> | undefined;
  /** This recorder's private git index: in the temp folder, never in a `.downcity/` that may be cloned. */
  private readonly privateIndex = join(tmpdir(), `downcity-index-${process.pid}-${randomBytes(6).toString("hex")}`);
  /** The folder's manifest, kept warm between commands. */
  private folder: WatchedFolder | undefined;
  /** In git: the private-index tree of the folder, and the content of each file changed since (overriding it). */
  private base: { tree: string } | undefined;
  private readonly since = new Map<string, ContentRef | Promise<ContentRef>>();
  /** Blob writes started before a command and finished while it runs (awaited before they are referenced). */
  private readonly writing = new Set<Promise<ContentRef>>();

  constructor(private readonly options: CheckpointRecorderOptions) {
    const paths = checkpointPaths(options.sessionDir);
    this.blobs = new BlobStore(paths.dir);
    this.gitObjects = paths.gitObjects;
  }

  /** Removes the private index (the runtime closing the session). */
  async dispose(): Promise<void> {
    this.folder?.close();
    this.folder = undefined;
    await Promise.all(this.writing);
    await unlink(this.privateIndex).catch(() => undefined);
  }

  /** Starts recording a call; undefined for tools that change no file. */
  async before(kind: ToolKind, args: unknown): Promise<PendingCheckpoint | undefined> {
    if (kind === "edit") {
      const path = (args as { path?: unknown } | null)?.path;
      return typeof path === "string" ? this.beforeEdit(path) : undefined;
    }
    if (kind === "command") return this.beforeCommand();
    return undefined;
  }

  private prepare(): Promise<void> {
    return (this.prepared ??= (this.options.prepare?.() ?? Promise.resolve()).catch((error) => {
      this.prepared = undefined;
      throw error;
    }));
  }

  /** The file's content as a reference (stored as a blob when it exists). */
  private async capture(abs: string): Promise<ContentRef> {
    const read = await readWorkspaceFile(abs);
    if (read.kind === "absent") return { kind: "absent" };
    if (read.kind === "unreadable") return unknownRef(`not kept: ${read.reason}`);
    await this.prepare();
    return this.blobs.put(read.bytes);
  }

  private async beforeEdit(path: string): Promise<PendingCheckpoint | undefined> {
    let abs: string;
    try {
      abs = await resolveInsideRoot(this.options.root, path, { forWrite: true });
    } catch {
      return undefined; // the tool refuses it too: nothing will change
    }
    const rel = displayPath(this.options.root, abs);
    let before: ContentRef;
    try {
      before = await this.capture(abs);
    } catch (error) {
      before = unknownRef(`not recorded: ${message(error)}`);
    }
    return {
      finish: async () => {
        let after: ContentRef;
        try {
          after = await this.capture(abs);
        } catch (error) {
          after = unknownRef(`not recorded: ${message(error)}`);
        }
        return { files: sameContent(before, after) ? [] : [{ path: rel, before, after }] };
      },
    };
  }

  private gitRepo(): Promise<GitRepo | undefined> {
    return (this.repo ??= findGitRepo(this.options.root));
  }

  private async beforeCommand(): Promise<PendingCheckpoint> {
    const { root } = this.options;
    const folder = (this.folder ??= new WatchedFolder({
      root,
      ...(this.options.exclude ? { exclude: this.options.exclude } : {}),
      ...(this.options.watch !== undefined ? { watch: this.options.watch } : {}),
    }));
    let synced: FolderSync;
    try {
      synced = await folder.sync();
    } catch (error) {
      const note = `the folder could not be listed before the command: ${message(error)}`;
      return { finish: async () => ({ files: [], note }) };
    }
    const repo = await this.gitRepo();
    let treeNote: string | undefined;
    if (repo) {
      try {
        await this.prepare();
        await this.keepSnapshot(repo, synced.changes);
      } catch (error) {
        this.base = undefined;
        this.since.clear();
        treeNote = `no git snapshot before the command: ${message(error)}`;
      }
    }
    return { finish: () => this.afterCommand(folder, repo, treeNote) };
  }

  /**
   * Makes the private snapshot hold the folder as it is now, before a command: the first
   * time (or after many changes) a private-index tree of the whole folder; otherwise the
   * files changed since, each kept as a blob (their content now is what a restore needs
   * if the command changes them), so a command costs what changed, not a `git add -A`.
   */
  private async keepSnapshot(repo: GitRepo, changes: readonly FolderChange[]): Promise<void> {
    if (!this.base || changes.length > RESNAPSHOT_AFTER) {
      this.base = undefined;
      this.since.clear();
      this.base = { tree: await snapshotTree(repo, this.gitObjects, this.privateIndex) };
      return;
    }
    for (const change of changes) {
      if (!change.after) this.since.delete(change.rel);
      else this.since.set(change.rel, (await this.readThenStore(join(this.options.root, change.rel))).stored);
    }
  }

  /**
   * Reads the file now (before the command can change it) and stores its blob while the
   * command runs: the bytes are already in memory, so only the compress + fsync overlaps.
   */
  private async readThenStore(abs: string): Promise<{ stored: ContentRef | Promise<ContentRef> }> {
    let read;
    try {
      read = await readWorkspaceFile(abs);
    } catch (error) {
      return { stored: unknownRef(`not recorded: ${message(error)}`) };
    }
    if (read.kind === "absent") return { stored: { kind: "absent" } };
    if (read.kind === "unreadable") return { stored: unknownRef(`not kept: ${read.reason}`) };
    const bytes = read.bytes;
    const write = this.blobs.put(bytes).then(
      (ref): ContentRef => ref,
      (error): ContentRef => unknownRef(`not recorded: ${message(error)}`),
    );
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
    return { stored: write };
  }

  private async captureOrUnknown(abs: string): Promise<ContentRef> {
    try {
      return await this.capture(abs);
    } catch (error) {
      return unknownRef(`not recorded: ${message(error)}`);
    }
  }

  private async afterCommand(
    folder: WatchedFolder,
    repo: GitRepo | undefined,
    treeNote: string | undefined,
  ): Promise<ToolCheckpoint> {
    const { root } = this.options;
    let synced: FolderSync;
    try {
      synced = await folder.sync();
    } catch (error) {
      return { files: [], note: `the folder could not be listed after the command: ${message(error)}` };
    }
    const created = synced.changes.filter((c) => !c.before).map((c) => c.rel);
    const changed = synced.changes.filter((c) => c.before && c.after).map((c) => c.rel);
    const deleted = synced.changes.filter((c) => !c.after).map((c) => c.rel);
    const base = repo && !treeNote ? this.base : undefined;
    const earlier = new Map<string, ContentRef>();
    if (repo && base) {
      const fromTree: string[] = [];
      for (const rel of [...changed, ...deleted]) {
        const since = this.since.get(rel);
        if (since) earlier.set(rel, await since);
        else fromTree.push(rel);
      }
      if (fromTree.length > 0) {
        try {
          const oids = await blobsAt(repo, this.gitObjects, base.tree, fromTree);
          for (const rel of fromTree) {
            const oid = oids.get(rel);
            earlier.set(rel, oid ? { kind: "git", oid } : unknownRef("not in the git snapshot before the command"));
          }
        } catch (error) {
          treeNote = `the git snapshot could not be read: ${message(error)}`;
        }
      }
    }
    const noGit = treeNote ?? "a command changed it in a folder without git: its earlier content is not known";
    const files: FileChange[] = [];
    for (const change of synced.changes) {
      const beforeRef: ContentRef = !change.before
        ? { kind: "absent" }
        : (earlier.get(change.rel) ?? unknownRef(noGit));
      const afterRef: ContentRef = change.after
        ? await this.captureOrUnknown(join(root, change.rel))
        : { kind: "absent" };
      files.push({ path: change.rel, before: beforeRef, after: afterRef });
      // What the command left is the next command's "before" (its blob is already kept).
      if (base) {
        if (change.after) this.since.set(change.rel, afterRef);
        else this.since.delete(change.rel);
      }
    }
    const out: ToolCheckpoint = { files, created: created.length, changed: changed.length, deleted: deleted.length };
    if (base) out.gitTree = base.tree;
    if (treeNote) out.note = treeNote;
    return out;
  }
}

/** Whether two references name the same content (so no change is recorded). */
export function sameContent(a: ContentRef, b: ContentRef): boolean {
  if (a.kind === "absent" && b.kind === "absent") return true;
  return a.kind === "blob" && b.kind === "blob" && a.sha256 === b.sha256;
}
