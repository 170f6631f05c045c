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
import { diffManifests, takeManifest, type Manifest } from "./manifest";
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
}

/** One approved call being recorded: `finish` after it ran says what it changed. */
export interface PendingCheckpoint {
  finish(): Promise<ToolCheckpoint>;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));
const unknownRef = (reason: string): ContentRef => ({ kind: "unknown", reason });

/**
 * Records what each edit and command changes, for restore (issue 24). An edit tool's
 * file is kept before and after as blobs; a command is bracketed by two manifests (and,
 * in a git folder, a private-index tree before it), so the files it created, changed or
 * deleted are known and, where their earlier content is known, restorable.
 */
export class CheckpointRecorder {
  readonly blobs: BlobStore;
  readonly gitObjects: string;
  private repo: Promise<GitRepo | undefined> | undefined;
  private prepared: Promise<void> | undefined;
  /** This recorder's private git index: in the temp folder, never in a `.downcity/` that may be cloned. */
  private readonly privateIndex = join(tmpdir(), `downcity-index-${process.pid}-${randomBytes(6).toString("hex")}`);

  constructor(private readonly options: CheckpointRecorderOptions) {
    const paths = checkpointPaths(options.sessionDir);
    this.blobs = new BlobStore(paths.dir);
    this.gitObjects = paths.gitObjects;
  }

  /** Removes the private index (the runtime closing the session). */
  async dispose(): Promise<void> {
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
    const exclude = this.options.exclude?.();
    let manifest: Manifest;
    try {
      manifest = await takeManifest({ root, ...(exclude ? { exclude } : {}) });
    } catch (error) {
      const note = `the folder could not be listed before the command: ${message(error)}`;
      return { finish: async () => ({ files: [], note }) };
    }
    const repo = await this.gitRepo();
    let tree: string | undefined;
    let treeNote: string | undefined;
    if (repo) {
      try {
        await this.prepare();
        tree = await snapshotTree(repo, this.gitObjects, this.privateIndex);
      } catch (error) {
        treeNote = `no git snapshot before the command: ${message(error)}`;
      }
    }
    return { finish: () => this.afterCommand(manifest, repo, tree, treeNote) };
  }

  private async afterCommand(
    before: Manifest,
    repo: GitRepo | undefined,
    tree: string | undefined,
    treeNote: string | undefined,
  ): Promise<ToolCheckpoint> {
    const { root } = this.options;
    const exclude = this.options.exclude?.();
    let after: Manifest;
    try {
      after = await takeManifest({ root, ...(exclude ? { exclude } : {}) });
    } catch (error) {
      return { files: [], note: `the folder could not be listed after the command: ${message(error)}` };
    }
    const diff = diffManifests(before, after);
    const earlier = new Map<string, ContentRef>();
    const touched = [...diff.changed, ...diff.deleted];
    if (repo && tree && touched.length > 0) {
      try {
        const oids = await blobsAt(repo, this.gitObjects, tree, touched);
        for (const rel of touched) {
          const oid = oids.get(rel);
          earlier.set(rel, oid ? { kind: "git", oid } : unknownRef("not in the git snapshot before the command"));
        }
      } catch (error) {
        treeNote = `the git snapshot could not be read: ${message(error)}`;
      }
    }
    const noGit = treeNote ?? "a command changed it in a folder without git: its earlier content is not known";
    const files: FileChange[] = [];
    for (const rel of [...diff.created, ...diff.changed, ...diff.deleted].sort()) {
      const created = !before.has(rel);
      const beforeRef: ContentRef = created ? { kind: "absent" } : (earlier.get(rel) ?? unknownRef(noGit));
      let afterRef: ContentRef;
      try {
        afterRef = after.has(rel) ? await this.capture(join(root, rel)) : { kind: "absent" };
      } catch (error) {
        afterRef = unknownRef(`not recorded: ${message(error)}`);
      }
      files.push({ path: rel, before: beforeRef, after: afterRef });
    }
    const out: ToolCheckpoint = {
      files,
      created: diff.created.length,
      changed: diff.changed.length,
      deleted: diff.deleted.length,
    };
    if (tree) out.gitTree = tree;
    if (treeNote) out.note = treeNote;
    return out;
  }
}

/** Whether two references name the same content (so no change is recorded). */
export function sameContent(a: ContentRef, b: ContentRef): boolean {
  if (a.kind === "absent" && b.kind === "absent") return true;
  return a.kind === "blob" && b.kind === "blob" && a.sha256 === b.sha256;
}
