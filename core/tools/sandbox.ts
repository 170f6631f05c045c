import { lstat, readlink, realpath } from "node:fs/promises";
import * as path from "node:path";
import { SandboxError } from "./errors";

/** Folders no tool may write into, at any depth: the repository and the session store. */
export const PROTECTED_DIRS: readonly string[] = [".git", ".downcity"];

/** Symlink hops followed by hand (dangling links) before giving up, like the kernel's ELOOP. */
const MAX_LINK_HOPS = 40;

export interface ResolveOptions {
  /** Refuse paths inside protected folders and the root itself. */
  forWrite: boolean;
}

/**
 * Whether a path component names a protected folder. Compared case-insensitively and
 * with trailing dots/spaces and NTFS stream suffixes removed, because on case-insensitive
 * or Windows file systems `.GIT`, `.git.` and `.git::$INDEX_ALLOCATION` are `.git`.
 */
export function isProtectedName(name: string): boolean {
  const bare = name
    .split(":")[0]!
    .replace(/[. ]+$/, "")
    .toLowerCase();
  return PROTECTED_DIRS.some((dir) => bare === dir);
}

/** True when `p` is `root` or below it. Both must be absolute and normalised. */
export function isInside(root: string, p: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return p.startsWith(prefix);
}

/** Workspace-relative, `/`-separated path for tool output ("." for the root). */
export function displayPath(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  if (rel === "") return ".";
  return path.sep === "/" ? rel : rel.split(path.sep).join("/");
}

/**
 * The sandbox rule every tool (Node or editor-backed) applies to a path argument.
 *
 * Resolves `relOrAbs` against `root` and then through every symlink (realpath). A path
 * that does not exist yet is resolved through its deepest existing ancestor, and dangling
 * symlinks are followed by hand, so a write can never land outside through a link. The
 * result must be inside the real root; for writes it must also not be the root itself nor
 * lie in a protected folder (`.git/`, `.downcity/`). Returns the resolved real path, which
 * is the path the caller must operate on.
 */
export async function resolveInsideRoot(
  root: string,
  relOrAbs: string,
  options: ResolveOptions = { forWrite: false },
): Promise<string> {
  if (typeof relOrAbs !== "string") throw new SandboxError("path must be a string");
  if (relOrAbs.length === 0) throw new SandboxError("path is empty");
  if (relOrAbs.includes("\0")) throw new SandboxError(`path contains a NUL byte: ${JSON.stringify(relOrAbs)}`);

  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    throw new SandboxError(`workspace root ${root} does not exist or cannot be read`);
  }
  const lexical = path.resolve(realRoot, relOrAbs);
  if (!isInside(realRoot, lexical)) {
    // Absolute paths under the root's unresolved spelling (e.g. /tmp vs /private/tmp) are fine.
    const viaGivenRoot = path.resolve(root, relOrAbs);
    if (!isInside(path.resolve(root), viaGivenRoot)) {
      throw new SandboxError(`path '${relOrAbs}' is outside the workspace root (${realRoot})`);
    }
  }

  const real = await realpathDeep(lexical, relOrAbs);
  if (!isInside(realRoot, real)) {
    throw new SandboxError(
      `path '${relOrAbs}' resolves through a symbolic link to ${real}, outside the workspace root (${realRoot})`,
    );
  }
  if (options.forWrite) {
    if (real === realRoot) throw new SandboxError("cannot write to the workspace root itself");
    const parts = path.relative(realRoot, real).split(path.sep);
    const hit = parts.find(isProtectedName);
    if (hit !== undefined) {
      const via = real === lexical ? "" : ` (it resolves to ${displayPath(realRoot, real)})`;
      throw new SandboxError(
        `refusing to write '${relOrAbs}'${via}: ${hit}/ is protected (tools never write inside ${PROTECTED_DIRS.map((d) => d + "/").join(" or ")})`,
      );
    }
  }
  return real;
}

/** realpath() that also works for paths that do not exist yet. */
async function realpathDeep(start: string, label: string): Promise<string> {
  let current = start;
  const tail: string[] = [];
  for (let hops = 0; ;) {
    try {
      const real = await realpath(current);
      return tail.length === 0 ? real : path.join(real, ...[...tail].reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ELOOP") throw new SandboxError(`path '${label}' has a symbolic link loop`);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
    }
    const stat = await lstat(current).catch(() => undefined);
    if (stat?.isSymbolicLink()) {
      // A dangling link: follow it ourselves, since a write would create its target.
      if (++hops > MAX_LINK_HOPS) throw new SandboxError(`path '${label}' has too many symbolic links`);
      const target = await readlink(current);
      const linkDir = await realpath(path.dirname(current));
      current = path.resolve(linkDir, target);
      continue;
    }
    const parent = path.dirname(current);
    if (parent === current) return path.join(current, ...[...tail].reverse());
    tail.push(path.basename(current));
    current = parent;
  }
}
