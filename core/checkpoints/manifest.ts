import { lstatSync } from "node:fs";
import { walkWorkspace } from "../tools/walk";

/** What a manifest knows of one file: enough to tell it changed, nothing of its content. */
export interface ManifestEntry {
  size: number;
  mtimeMs: number;
  ino: number;
  /** A symbolic link is recorded, never followed. */
  link: boolean;
}
export type Manifest = Map<string, ManifestEntry>;

export interface ManifestOptions {
  root: string;
  signal?: AbortSignal;
  /** The host's excludes (VS Code's files.exclude), on workspace-relative paths. */
  exclude?: (rel: string) => boolean;
}

/**
 * The folder's files as (path, size, mtime), taken before and after a command: one walk
 * with .gitignore honoured and .git/ and .downcity/ skipped (as every tool walk), and
 * one lstat per file. No content is read.
 */
export async function takeManifest(options: ManifestOptions): Promise<Manifest> {
  const out: Manifest = new Map();
  const exclude = options.exclude;
  for await (const entry of walkWorkspace({
    root: options.root,
    start: options.root,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(exclude ? { skipDir: exclude } : {}),
  })) {
    if (exclude?.(entry.rel)) continue;
    let st;
    try {
      st = lstatSync(entry.abs);
    } catch {
      continue; // vanished between readdir and lstat
    }
    out.set(entry.rel, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, link: st.isSymbolicLink() });
  }
  return out;
}

export interface ManifestDiff {
  created: string[];
  changed: string[];
  deleted: string[];
}

/** Files created, changed (size, mtime or inode differ: a rewrite by rename shows) and deleted; a rename is a delete and a create. */
export function diffManifests(before: Manifest, after: Manifest): ManifestDiff {
  const created: string[] = [];
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const [rel, a] of after) {
    const b = before.get(rel);
    if (!b) created.push(rel);
    else if (b.size !== a.size || b.mtimeMs !== a.mtimeMs || b.ino !== a.ino || b.link !== a.link) changed.push(rel);
  }
  for (const rel of before.keys()) if (!after.has(rel)) deleted.push(rel);
  return { created: created.sort(), changed: changed.sort(), deleted: deleted.sort() };
}
