import { callKey, type ApprovalDecision, type SessionRef } from "../../core/protocol";

/** Which approval: two agents (or two folders) may hold the same session id, so all four parts count. */
export interface DecisionKey extends SessionRef {
  toolCallId: string;
}

/** What a cancelled run's open approvals resolve to, on every surface. */
export const CANCELLED: ApprovalDecision = { approved: false, reason: "the turn was cancelled" };

/** One open approval: answered once, by whichever surface is first (chat card, diff title bar, notification, Stop). */
export interface PendingDecision {
  readonly key: DecisionKey;
  /** Settles with the first answer. */
  readonly decision: Promise<ApprovalDecision>;
  /** Aborts when the decision settles: surfaces still showing it close on this. */
  readonly settled: AbortSignal;
  /** The first call wins; later ones return false and change nothing. */
  answer(decision: ApprovalDecision): boolean;
}

/**
 * The open approvals of this window, one decision per tool call. Plain TypeScript: the
 * chat controller, the diff review and the notification all answer through it, and
 * each learns of the outcome from `settled`, so no surface depends on another staying up.
 */
export class PendingDecisions {
  private readonly open = new Map<string, PendingDecision>();
  private readonly listeners = new Set<() => void>();

  /**
   * Opens the decision for `key`, resolved as cancelled when `signal` aborts (Stop).
   * Asking again for a key still open returns the same decision.
   */
  ask(key: DecisionKey, signal: AbortSignal): PendingDecision {
    const id = idOf(key);
    const existing = this.open.get(id);
    if (existing) return existing;
    const settled = new AbortController();
    let resolve!: (d: ApprovalDecision) => void;
    const decision = new Promise<ApprovalDecision>((r) => (resolve = r));
    const onAbort = () => pending.answer(CANCELLED);
    const pending: PendingDecision = {
      key,
      decision,
      settled: settled.signal,
      answer: (d) => {
        if (settled.signal.aborted) return false;
        signal.removeEventListener("abort", onAbort);
        if (this.open.get(id) === pending) this.open.delete(id);
        resolve(d);
        settled.abort();
        this.changed();
        return true;
      },
    };
    this.open.set(id, pending);
    if (signal.aborted) onAbort();
    else {
      signal.addEventListener("abort", onAbort, { once: true });
      this.changed();
    }
    return pending;
  }

  /** A surface's answer; false when nothing waits for it (answered elsewhere already, run ended). */
  answer(key: DecisionKey, decision: ApprovalDecision): boolean {
    return this.open.get(idOf(key))?.answer(decision) ?? false;
  }

  get(key: DecisionKey): PendingDecision | undefined {
    return this.open.get(idOf(key));
  }

  isPending(key: DecisionKey): boolean {
    return this.open.has(idOf(key));
  }

  get size(): number {
    return this.open.size;
  }

  /** Called after a decision opened or settled. */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

/** The call's folder-qualified key: this set spans every folder of the window. */
const idOf = (k: DecisionKey) => callKey(k, k.toolCallId, k.folderKey);
