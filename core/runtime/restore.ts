import type { LocalSessionRef, SessionEvent } from "../protocol";
import type { Session, SessionListItem, SessionPersistence } from "../session";
import { ContentSource } from "../checkpoints/content";
import {
  applyRestore,
  endRestore,
  RestoreError,
  settleInterruptedRestore,
  undoableRestore,
  type ConflictChoice,
} from "../checkpoints/apply";
import { planRestore, type LoadedPlan } from "../checkpoints/plan";
import { restorePointOf } from "../checkpoints/timeline";
import { realRoot } from "../checkpoints/real-root";
import type { Sessions } from "../storage/sessions";

export type RestoreScope = "files" | "files+conversation";
export type { ConflictChoice, LoadedPlan as RestorePreview };

export interface RestoreOutcome {
  /** Seq of the `restore/start` in the restored session. */
  startSeq: number;
  restored: string[];
  /** Conflicts the user chose to keep. */
  kept: string[];
  notRestorable: string[];
  /** The session the conversation continues in (files+conversation). */
  fork?: SessionListItem;
}

export interface RestoreApplyOptions {
  scope: RestoreScope;
  choices?: Readonly<Record<string, ConflictChoice>>;
  undoOf?: number;
  /** After each file is replaced (tests kill the process here). */
  onFile?: (path: string) => void | Promise<void>;
}

/** What restore needs of the runtime (kept out of the runtime class: one job per file). */
export interface RestoreHost {
  root: string;
  sessions: Sessions<SessionPersistence>;
  sessionDir(session: Session): string;
}

/** The whole history, segments included: a restore point may lie in a closed prefix. */
export async function fullHistory(host: RestoreHost, session: Session): Promise<SessionEvent[]> {
  const ref: LocalSessionRef = { agentId: session.agentId, sessionId: session.id };
  const pages: SessionEvent[][] = [[...session.events()]];
  for (let before = session.baseSeq + 1; before > 1;) {
    const page = await host.sessions.messages(ref, { beforeSequence: before });
    if (page.events.length === 0) break;
    pages.unshift(page.events.filter((e) => e.seq < before));
    before = page.firstSeq;
    if (!page.hasOlder) break;
  }
  return pages.flat();
}

export async function restorePoint(host: RestoreHost, session: Session, messageSeq: number): Promise<number> {
  return restorePointOf(await fullHistory(host, session), messageSeq);
}

const sourceOf = (host: RestoreHost, session: Session) =>
  new ContentSource(realRoot(host.root), host.sessionDir(session));

export async function previewRestore(host: RestoreHost, session: Session, toSeq: number): Promise<LoadedPlan> {
  return planRestore(await fullHistory(host, session), toSeq, realRoot(host.root), sourceOf(host, session));
}

/**
 * Writes a previewed restore; with the conversation, forks the session at the restore
 * point (the later history stays in the original, which is never shortened).
 */
export async function applyPreviewed(
  host: RestoreHost,
  session: Session,
  plan: LoadedPlan,
  options: RestoreApplyOptions,
): Promise<RestoreOutcome> {
  const result = await applyRestore(plan, sourceOf(host, session), {
    session,
    flush: () => host.sessions.flush(session),
    scope: options.scope,
    ...(options.choices ? { choices: options.choices } : {}),
    ...(options.undoOf ? { undoOf: options.undoOf } : {}),
    ...(options.onFile ? { onFile: options.onFile } : {}),
  });
  let fork: SessionListItem | undefined;
  if (options.scope === "files+conversation") {
    const ref = { agentId: session.agentId, sessionId: session.id };
    // Seq 0 (before the first message): a new session holds that conversation (nothing).
    if (plan.toSeq >= 1) fork = await host.sessions.fork(ref, { atSeq: plan.toSeq });
  }
  endRestore(session, result, fork?.sessionId);
  await host.sessions.flush(session);
  return {
    startSeq: result.startSeq,
    restored: result.restored,
    kept: result.kept,
    notRestorable: result.notRestorable,
    ...(fork ? { fork } : {}),
  };
}

/** The preview of undoing the session's latest restore (back to the files it found). */
export async function previewUndo(host: RestoreHost, session: Session): Promise<{ plan: LoadedPlan; undoOf: number }> {
  const events = await fullHistory(host, session);
  const last = undoableRestore(events);
  if (!last) throw new RestoreError("there is no restore to undo in this session");
  return {
    plan: await planRestore(events, last.seq - 1, realRoot(host.root), sourceOf(host, session)),
    undoOf: last.seq,
  };
}

/** Logs the end of a restore a crash interrupted, from what the disk holds (on open). */
export async function settleRestore(host: RestoreHost, session: Session): Promise<void> {
  if (session.readOnly !== undefined) return;
  if (!session.events().some((e) => e.type === "restore/start")) return;
  if (await settleInterruptedRestore(session, realRoot(host.root))) await host.sessions.flush(session);
}
