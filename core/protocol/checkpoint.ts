import { z } from "zod";

/*
 * What the log records of the files the agent changed (issue 24): content references
 * on tool results, and the restore events. Everything here comes back from a log that
 * may have been cloned with the repository: paths are re-checked by the sandbox and
 * blobs by their hash before anything is written.
 */

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
/** A git object id (SHA-1 or SHA-256 repositories). */
const GitOid = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/);

/** A file's content at one moment: a stored blob, a git object, no file, or not known. */
export const ContentRef = z.union([
  z.looseObject({ kind: z.literal("blob"), sha256: Sha256, size: z.number().int().nonnegative() }),
  z.looseObject({ kind: z.literal("git"), oid: GitOid }),
  z.looseObject({ kind: z.literal("absent") }),
  /** Never guessed: a command changed the file outside git, or it was too large to keep. */
  z.looseObject({ kind: z.literal("unknown"), reason: z.string() }),
]);
export type ContentRef = z.infer<typeof ContentRef>;

/** One file a tool changed: workspace-relative, `/`-separated. */
export const FileChange = z.looseObject({ path: z.string().min(1).max(4096), before: ContentRef, after: ContentRef });
export type FileChange = z.infer<typeof FileChange>;

/** On a `tool/result`: every file the call changed (an edit's one file, a command's manifest diff). */
export const ToolCheckpoint = z.looseObject({
  files: z.array(FileChange),
  /** A command's changes as its before/after manifests saw them. */
  created: z.number().int().nonnegative().optional(),
  changed: z.number().int().nonnegative().optional(),
  deleted: z.number().int().nonnegative().optional(),
  /** The private-index tree of the folder before the command (git folders only). */
  gitTree: GitOid.optional(),
  /** Why the call's changes are not (fully) known. */
  note: z.string().optional(),
});
export type ToolCheckpoint = z.infer<typeof ToolCheckpoint>;

/** A restore begins: written (and flushed) before the first file is touched. */
export const RestoreStartData = z.looseObject({
  /** The files are put back as they were right after this seq. */
  toSeq: z.number().int().nonnegative(),
  scope: z.enum(["files", "files+conversation"]),
  /** The `restore/start` this one undoes. */
  undoOf: z.number().int().positive().optional(),
  /** before: the file as the restore found it (kept, so Undo Restore can put it back); after: what it writes. */
  files: z.array(FileChange),
});
export type RestoreStartData = z.infer<typeof RestoreStartData>;

/** One file of a restore was replaced (atomically). */
export const RestoreFileData = z.looseObject({ startSeq: z.number().int().positive(), path: z.string().min(1) });
export type RestoreFileData = z.infer<typeof RestoreFileData>;

/** A restore ended; "interrupted" is written by the next open after a crash, from what the disk holds. */
export const RestoreEndData = z.looseObject({
  startSeq: z.number().int().positive(),
  outcome: z.enum(["done", "failed", "interrupted"]),
  /** Files left as the restore wanted them (after), and as it found them (before). */
  restored: z.array(z.string()).optional(),
  notRestored: z.array(z.string()).optional(),
  error: z.string().optional(),
  /** The fork the conversation continues in (files+conversation). */
  forkId: z.string().min(1).optional(),
});
export type RestoreEndData = z.infer<typeof RestoreEndData>;
