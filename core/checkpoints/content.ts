import type { ContentRef } from "../protocol";
import { BlobStore, sha256 } from "./blob-store";
import { findGitRepo, gitBlobId, readGitBlob, type GitRepo } from "./git-snapshot";
import { checkpointPaths } from "./layout";

/** Reads what a reference names (blobs and git objects hash-checked): the bytes, null for absent, or why not. */
export class ContentSource {
  readonly blobs: BlobStore;
  private readonly gitObjects: string;
  private repo: Promise<GitRepo | undefined> | undefined;

  constructor(
    private readonly root: string,
    sessionDir: string,
  ) {
    const paths = checkpointPaths(sessionDir);
    this.blobs = new BlobStore(paths.dir);
    this.gitObjects = paths.gitObjects;
  }

  async read(ref: ContentRef): Promise<{ ok: true; bytes: Buffer | null } | { ok: false; reason: string }> {
    try {
      if (ref.kind === "absent") return { ok: true, bytes: null };
      if (ref.kind === "unknown") return { ok: false, reason: ref.reason };
      if (ref.kind === "blob") return { ok: true, bytes: await this.blobs.get(ref.sha256) };
      const repo = await (this.repo ??= findGitRepo(this.root));
      if (!repo)
        return { ok: false, reason: "its content is a git object and the folder is no longer a git work tree" };
      return { ok: true, bytes: await readGitBlob(repo, this.gitObjects, ref.oid) };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  }
}

/** Whether a file's bytes (null: no file) are what `ref` names; an unknown reference matches nothing. */
export function matches(bytes: Buffer | null, ref: ContentRef): boolean {
  if (ref.kind === "absent") return bytes === null;
  if (bytes === null || ref.kind === "unknown") return false;
  if (ref.kind === "blob") return bytes.byteLength === ref.size && sha256(bytes) === ref.sha256;
  return gitBlobId(bytes, ref.oid.length === 64 ? "sha256" : "sha1") === ref.oid;
}
