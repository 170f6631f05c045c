import { z } from "zod";
import { contextTokens, type AssistantMessageData, type SessionEvent } from "../protocol";
import type { Session } from "../session";
import type { CompactionConfig } from "./config";
import { blocksChars, sentTotal, type SentChars } from "./measure";

export const CompactionReason = z.enum(["usage", "verify-failed", "escalated", "context-length", "manual"]);
export type CompactionReason = z.infer<typeof CompactionReason>;

/** Reasons that deep-compact: keep only the open tool transaction and the newest user message. */
export const DEEP_REASONS: ReadonlySet<CompactionReason> = new Set(["verify-failed", "escalated", "context-length"]);

/** Why a compaction closed nothing. */
export const CompactionCause = z.enum([
  /** Everything on the Surface is the open tool transaction and the newest user message. */
  "open-transaction",
  /** The retained tail already holds every message. */
  "tail-holds-all",
  /** The window is smaller than the system prompt and tools: nothing a compaction removes helps. */
  "overhead",
]);
export type CompactionCause = z.infer<typeof CompactionCause>;

/** `compaction/end`: what one compaction did, and the measurements it was sized from. */
export const CompactionEndData = z.looseObject({
  reason: CompactionReason,
  deep: z.boolean().optional(),
  folded: z.number().int().nonnegative(),
  /** Surface messages removed from the model context (closed into a segment). */
  closed: z.number().int().nonnegative().optional(),
  throughSeq: z.number().int().positive().optional(),
  summary: z.string().optional(),
  summaryChars: z.number().int().nonnegative().optional(),
  /** Real usage (tokens) of the last request before the compaction. */
  usageBefore: z.number().int().nonnegative().optional(),
  contextWindow: z.number().int().positive().optional(),
  /** Measured from the last request's real usage; absent while only the default was known. */
  tokensPerChar: z.number().positive().optional(),
  /** Characters the retained tail was allowed (normal compactions). */
  retainChars: z.number().int().nonnegative().optional(),
  cause: CompactionCause.optional(),
  /** Human-readable why, when nothing was closed or the turn cannot go on. */
  note: z.string().optional(),
});
export type CompactionEndData = z.infer<typeof CompactionEndData>;

interface UsageMark {
  seq: number;
  tokens: number;
}

interface Terminal {
  seq: number;
  reason?: CompactionReason;
  kind: "end" | "error";
  deep: boolean;
  closed: number;
  cause?: CompactionCause;
}

export interface PendingCompaction {
  reason: CompactionReason;
  deep: boolean;
}

/**
 * The compaction cycle derived from the session log, so a new process (a CLI run, a
 * window reload, a crash) continues exactly where the last one stopped: the last
 * `compaction/end` (or `/error`), the real usages after it, and the measured tokens per
 * character. Folded forward incrementally: each check costs O(new events).
 */
export class CompactionLedger {
  private foldedThrough = 0;
  private terminal: Terminal | undefined;
  private firstAfter: UsageMark | undefined;
  private latestAfter: UsageMark | undefined;
  private userAfter = false;
  private lastHeader: SentChars | undefined;
  private measured: number | undefined;
  private sentOfMeasure: SentChars | undefined;

  /** Tokens per character of the last request with real usage (undefined before any). */
  get tokensPerChar(): number | undefined {
    return this.measured;
  }
  /** Characters the last measured request sent (system, tools, messages). */
  get sent(): SentChars | undefined {
    return this.sentOfMeasure;
  }
  /** Real usage (tokens) of the last completed request since the last compaction, else before it. */
  get latestUsage(): number | undefined {
    return this.latestAfter?.tokens ?? this.usageBeforeTerminal;
  }
  private usageBeforeTerminal: number | undefined;

  /** Folds the events appended since the last call (all of Active after a closed prefix it did not see). */
  sync(session: Session): void {
    if (session.baseSeq > this.foldedThrough) this.reset();
    for (const event of session.events(this.foldedThrough + 1)) this.fold(event);
    this.foldedThrough = session.lastSeq;
  }

  /** The compaction due before the next call, if one is (DESIGN §8). */
  pending(config: CompactionConfig, window: number | undefined): PendingCompaction | undefined {
    if (!window) return undefined;
    const over = (mark: UsageMark | undefined, ratio: number) => mark !== undefined && mark.tokens / window >= ratio;
    const t = this.terminal;
    if (t?.kind === "end") {
      // Nothing could be closed: escalate once to a deep compaction (not after a manual
      // one: a small session is no reason to drop its verbatim history). An overhead that
      // does not fit is checked again every time (the window or the tools may change).
      if (t.cause === "overhead" || (t.closed === 0 && !t.deep && t.reason !== "manual")) return { reason: "escalated", deep: true };
      // A deep compaction that removed nothing: only new input can make one useful.
      if (t.closed === 0) return this.userAfter && over(this.latestAfter, config.triggerRatio) ? { reason: "usage", deep: false } : undefined;
      if (this.firstAfter && this.firstAfter.tokens / window > config.verifyRatio) return { reason: "verify-failed", deep: true };
    }
    return over(this.latestAfter, config.triggerRatio) ? { reason: "usage", deep: false } : undefined;
  }

  private reset(): void {
    this.terminal = undefined;
    this.firstAfter = undefined;
    this.latestAfter = undefined;
    this.userAfter = false;
    this.lastHeader = undefined;
  }

  private fold(event: SessionEvent): void {
    switch (event.type) {
      case "request/header": {
        const chars = (event.data as { chars?: SentChars }).chars;
        this.lastHeader = chars;
        return;
      }
      case "assistant/message": {
        const data = event.data as AssistantMessageData;
        if (!data.usage) return;
        const tokens = contextTokens(data.usage);
        // Usage counts the answer too, so its characters join what was sent.
        if (this.lastHeader && tokens > 0) {
          this.measured = tokens / (sentTotal(this.lastHeader) + blocksChars(data.content) || 1);
          this.sentOfMeasure = this.lastHeader;
        }
        const mark = { seq: event.seq, tokens };
        this.firstAfter ??= mark;
        this.latestAfter = mark;
        return;
      }
      case "user/message":
        this.userAfter = true;
        return;
      case "compaction/end": {
        const parsed = CompactionEndData.safeParse(event.data);
        if (!parsed.success) return;
        const data = parsed.data;
        this.usageBeforeTerminal = data.usageBefore ?? this.latestAfter?.tokens;
        this.terminal = { seq: event.seq, reason: data.reason, kind: "end", deep: data.deep ?? DEEP_REASONS.has(data.reason), closed: data.closed ?? (data.throughSeq ? 1 : 0), ...(data.cause ? { cause: data.cause } : {}) };
        // The measurement survives even when the request it came from was closed.
        if (data.tokensPerChar) this.measured ??= data.tokensPerChar;
        this.clearAfter();
        return;
      }
      case "compaction/error":
        this.usageBeforeTerminal = this.latestAfter?.tokens ?? this.usageBeforeTerminal;
        this.terminal = { seq: event.seq, kind: "error", deep: false, closed: 0 };
        this.clearAfter();
        return;
    }
  }

  private clearAfter(): void {
    this.firstAfter = undefined;
    this.latestAfter = undefined;
    this.userAfter = false;
  }
}
