import { unlink } from "node:fs/promises";
import type { ContentRef, FileChange, RestoreEndData, RestoreStartData, SessionEvent } from "../protocol";
import type { Session } from "../session";
import { atomicWriteFile } from "../tools/atomic-write";
import { resolveInsideRoot } from "../tools/sandbox";
import { sha256 } from "./blob-store";
import { matches, type ContentSource } from "./content";
import type { LoadedPlan } from "./plan";
import { readWorkspaceFile } from "./read-file";
import { unfinishedRestore } from "./timeline";

export type ConflictChoice = "mine" | "checkpoint";

export class RestoreError extends Error {
  override name = "RestoreError";
}

export interface ApplyOptions {
  session: Session;
  /** Makes the log durable (restore/start is on disk before the first file is touched). */
  flush: () => Promise<void>;
  scope: "files" | "files+conversation";
  /** Per conflicting path: keep the user's file or take the checkpoint. Every conflict needs one. */
  choices?: Readonly<Record<string, ConflictChoice>>;
  undoOf?: number;
  /** Called after each file is replaced (tests kill the process here). */
  onFile?: (path: string) => void | Promise<void>;
}

export interface ApplyResult {
  startSeq: number;
  restored: string[];
  kept: string[];
  notRestorable: string[];
}

/**
 * Writes a plan: each file replaced atomically (temp + fsync + rename; an absent target
 * is an unlink), the restore logged around it — `restore/start` with every file's
 * content before (kept as a blob, so Undo Restore can put it back) and after, flushed
 * before the first write; a `restore/file` per file; `restore/end`. A file that changed
 * since the preview stops the restore before anything is written.
 */
export async function applyRestore(
  plan: LoadedPlan,
  source: ContentSource,
  options: ApplyOptions,
): Promise<ApplyResult> {
  const { session } = options;
  const choices = options.choices ?? {};
  const missing = plan.files.filter((f) => f.status === "conflict" && choices[f.path] === undefined).map((f) => f.path);
  if (missing.length > 0)
    throw new RestoreError(`choose "keep mine" or "take checkpoint" for each conflict first: ${missing.join(", ")}`);
  const chosen = plan.files.filter(
    (f) => f.status === "restore" || (f.status === "conflict" && choices[f.path] === "checkpoint"),
  );
  const kept = plan.files.filter((f) => f.status === "conflict" && choices[f.path] === "mine").map((f) => f.path);
  const notRestorable = plan.files.filter((f) => f.status === "not-restorable").map((f) => f.path);

  const files: FileChange[] = [];
  for (const f of chosen) {
    const planned = plan.bytes.get(f.path)!;
    const read = await readWorkspaceFile(plan.abs.get(f.path)!);
    const now = read.kind === "bytes" ? read.bytes : null;
    if (read.kind === "unreadable" || !sameBytes(now, planned.now))
      throw new RestoreError(`${f.path} changed after the preview; nothing was restored. Preview again.`);
    const before: ContentRef = now === null ? { kind: "absent" } : await source.blobs.put(now);
    files.push({ path: f.path, before, after: f.target });
  }
  const start = session.append("restore/start", {
    toSeq: plan.toSeq,
    scope: options.scope,
    files,
    ...(options.undoOf ? { undoOf: options.undoOf } : {}),
  });
  await options.flush();

  const restored: string[] = [];
  try {
    for (const f of files) {
      const abs = plan.abs.get(f.path)!;
      const target = plan.bytes.get(f.path)!.target;
      if (target === null)
        await unlink(abs).catch((e: NodeJS.ErrnoException) => (e.code === "ENOENT" ? undefined : Promise.reject(e)));
      else await atomicWriteFile(abs, target, { mkdirs: true });
      restored.push(f.path);
      session.append("restore/file", { startSeq: start.seq, path: f.path });
      await options.onFile?.(f.path);
    }
  } catch (error) {
    const notDone = files.map((f) => f.path).filter((p) => !restored.includes(p));
    session.append("restore/end", {
      startSeq: start.seq,
      outcome: "failed",
      restored,
      notRestored: notDone,
      error: (error as Error).message,
    });
    await options.flush();
    throw new RestoreError(
      `the restore stopped: ${(error as Error).message}; restored ${restored.length}, not restored ${notDone.join(", ")}`,
    );
  }
  return { startSeq: start.seq, restored, kept, notRestorable };
}

/** Appends the end of a restore (after the conversation's fork, when there is one). */
export function endRestore(session: Session, result: ApplyResult, forkId?: string): void {
  const files = result.restored;
  session.append("restore/end", {
    startSeq: result.startSeq,
    outcome: "done",
    restored: files,
    notRestored: [],
    ...(forkId ? { forkId } : {}),
  });
}

/**
 * After a crash during a restore (a start with no end), tells from the disk which files
 * hold the content the restore wrote and which do not, and logs that as the restore's
 * end (outcome "interrupted"). Returns that end, or undefined when nothing was pending.
 */
export async function settleInterruptedRestore(session: Session, root: string): Promise<RestoreEndData | undefined> {
  const start = unfinishedRestore(session.events());
  if (!start) return undefined;
  const data = start.data as RestoreStartData;
  const restored: string[] = [];
  const notRestored: string[] = [];
  for (const f of data.files) {
    let now: Buffer | null = null;
    try {
      const read = await readWorkspaceFile(await resolveInsideRoot(root, f.path, { forWrite: true }));
      now = read.kind === "bytes" ? read.bytes : null;
      if (read.kind === "unreadable") throw new Error(read.reason);
    } catch {
      notRestored.push(f.path);
      continue;
    }
    (matches(now, f.after) ? restored : notRestored).push(f.path);
  }
  const end: RestoreEndData = { startSeq: start.seq, outcome: "interrupted", restored, notRestored };
  session.append("restore/end", end);
  return end;
}

/** The latest restore Undo Restore would undo: ended, and not itself undone yet. */
export function undoableRestore(events: readonly SessionEvent[]): SessionEvent | undefined {
  const undone = new Set<number>();
  const ended = new Set<number>();
  for (const e of events) {
    if (e.type === "restore/start" && (e.data as RestoreStartData).undoOf)
      undone.add((e.data as RestoreStartData).undoOf!);
    if (e.type === "restore/end" && (e.data as RestoreEndData).outcome !== "failed")
      ended.add((e.data as RestoreEndData).startSeq);
  }
  return events.findLast(
    (e) => e.type === "restore/start" && ended.has(e.seq) && !undone.has(e.seq) && !(e.data as RestoreStartData).undoOf,
  );
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.byteLength === b.byteLength && sha256(a) === sha256(b);
}
