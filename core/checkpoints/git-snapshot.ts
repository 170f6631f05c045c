import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { copyFile, lstat, mkdir, unlink } from "node:fs/promises";
import { isAbsolute, join } from "node:path";

/*
 * The state of a git folder before a command, without touching the user's repository:
 * a private index (a copy of the user's, so unchanged files cost a stat, not a hash)
 * and a private object directory under the session's checkpoints, with the user's
 * objects as an alternate. `git add -A` + `git write-tree` then write only into those;
 * the user's index, HEAD, refs, stash and untracked files are only read.
 */

export class GitSnapshotError extends Error {
  override name = "GitSnapshotError";
}

export interface GitRepo {
  /** The workspace folder (git runs here). */
  root: string;
  /** The workspace folder's path inside the repository ("" at the top, else ending in "/"). */
  prefix: string;
  /** The user's object directory and index (read only). */
  objects: string;
  index: string;
  /** Whether git ignores `.downcity/` here (then excluding it by pathspec makes `git add` fail); asked once. */
  downcityIgnored?: boolean;
}

/** Only what git needs: none of the user's GIT_DIR, GIT_INDEX_FILE or GIT_WORK_TREE can redirect a snapshot. */
function gitEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ["PATH", "HOME", "SystemRoot", "TMPDIR", "LANG"])
    if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0", GIT_CONFIG_NOSYSTEM: "1", ...extra };
}

const BASE_ARGS = ["-c", "core.fsmonitor=false", "-c", "gc.auto=0", "-c", "core.quotepath=false"];

function git(cwd: string, args: string[], env: NodeJS.ProcessEnv): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      [...BASE_ARGS, ...args],
      { cwd, env, encoding: "buffer", maxBuffer: 256 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new GitSnapshotError(
              `git ${args[0]} failed: ${(stderr.toString("utf8").trim() || error.message).split("\n")[0]}`,
            ),
          );
        else resolve(stdout);
      },
    );
  });
}

/** The repository the folder is in, or undefined (no git, or not a work tree). */
export async function findGitRepo(root: string): Promise<GitRepo | undefined> {
  let out: string;
  try {
    out = (
      await git(
        root,
        ["rev-parse", "--is-inside-work-tree", "--show-prefix", "--git-path", "objects", "--git-path", "index"],
        gitEnv(),
      )
    ).toString("utf8");
  } catch {
    return undefined;
  }
  const [inside, prefix, objects, index] = out.split("\n");
  if (inside !== "true" || objects === undefined || index === undefined) return undefined;
  const abs = (p: string) => (isAbsolute(p) ? p : join(root, p));
  return { root, prefix: prefix ?? "", objects: abs(objects), index: abs(index) };
}

/** Runs git against the private objects (the user's as an alternate). */
function privateEnv(repo: GitRepo, objects: string, index?: string): NodeJS.ProcessEnv {
  return gitEnv({
    GIT_OBJECT_DIRECTORY: objects,
    GIT_ALTERNATE_OBJECT_DIRECTORIES: repo.objects,
    ...(index ? { GIT_INDEX_FILE: index } : {}),
  });
}

/**
 * Snapshots the folder's files (what `git add -A` sees: .gitignore honoured; `.downcity/`
 * left out) into the private objects and returns the tree's id. `index` is the private
 * index: seeded from a copy of the user's on first use, then kept (outside `.downcity/`,
 * which may be cloned) so its stat data is fresh and only changed files are hashed.
 */
export async function snapshotTree(repo: GitRepo, objects: string, index: string): Promise<string> {
  await assertNoLinkChain(objects);
  await mkdir(objects, { recursive: true });
  try {
    await copyFile(repo.index, index, constants.COPYFILE_EXCL);
  } catch (error) {
    // Already seeded, or a repository with no index yet (it starts empty).
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST" && code !== "ENOENT") throw error;
  }
  try {
    const env = privateEnv(repo, objects, index);
    // git (2.39) refuses an exclude pathspec that names an ignored path, and the usual
    // .gitignore lists .downcity/: then "." alone already leaves it out.
    repo.downcityIgnored ??= await ignoredByGit(repo, ".downcity");
    await git(repo.root, ["add", "-A", "--", ".", ...(repo.downcityIgnored ? [] : [":(exclude).downcity"])], env);
    return (await git(repo.root, ["write-tree"], env)).toString("utf8").trim();
  } catch (error) {
    // A private index git could not use is dropped: the next snapshot seeds a fresh one (and asks again).
    delete repo.downcityIgnored;
    await unlink(index).catch(() => undefined);
    throw error;
  } finally {
    await unlink(`${index}.lock`).catch(() => undefined);
  }
}

/** Whether git's ignore rules (the user's own, read only) leave out `rel`. */
async function ignoredByGit(repo: GitRepo, rel: string): Promise<boolean> {
  try {
    await git(repo.root, ["check-ignore", "-q", "--", rel], gitEnv());
    return true;
  } catch {
    return false; // exit 1: not ignored (and on any other failure the pathspec keeps it out)
  }
}

/** The blob id of each workspace-relative path in `tree`; a path not in it is absent (undefined). */
export async function blobsAt(
  repo: GitRepo,
  objects: string,
  tree: string,
  paths: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const env = privateEnv(repo, objects);
  for (let i = 0; i < paths.length; i += 500) {
    const chunk = paths.slice(i, i + 500).map((p) => repo.prefix + p);
    const listed = (await git(repo.root, ["ls-tree", "-z", "--full-tree", tree, "--", ...chunk], env)).toString("utf8");
    for (const record of listed.split("\0")) {
      const tab = record.indexOf("\t");
      if (tab < 0) continue;
      const [, type, oid] = record.slice(0, tab).split(" ");
      if (type === "blob" && oid) out.set(record.slice(tab + 1).slice(repo.prefix.length), oid);
    }
  }
  return out;
}

/** A blob's bytes, checked against its id (the private objects live in an untrusted `.downcity/`). */
export async function readGitBlob(repo: GitRepo, objects: string, oid: string): Promise<Buffer> {
  await assertNoLinkChain(objects);
  const bytes = await git(repo.root, ["cat-file", "blob", oid], privateEnv(repo, objects));
  if (gitBlobId(bytes, oid.length === 64 ? "sha256" : "sha1") !== oid)
    throw new GitSnapshotError(`git object ${oid} does not match its id (forged or damaged): refused`);
  return bytes;
}

/** The id git gives `bytes` as a blob. */
export function gitBlobId(bytes: Uint8Array, algorithm: "sha1" | "sha256" = "sha1"): string {
  return createHash(algorithm).update(`blob ${bytes.byteLength}\0`).update(bytes).digest("hex");
}

async function assertNoLinkChain(dir: string): Promise<void> {
  for (let p = dir, i = 0; i < 3; i++, p = join(p, "..")) {
    try {
      if ((await lstat(p)).isSymbolicLink()) throw new GitSnapshotError(`refused: ${p} is a symbolic link`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}
