import { z } from "zod";
import {
  CompactionEndData,
  contextTokens,
  type AssistantMessageData,
  type CompactionCause,
  type SessionEvent,
} from "../protocol";
import type { Session } from "../session";
import type { CompactionConfig } from "./config";
import { blocksChars, sentTotal, type SentChars } from "./measure";

export const CompactionReason = z.enum(["usage", "verify-failed", "escalated", "context-length", "manual"]);
export type CompactionReason = z.infer<typeof CompactionReason>;

/** Reasons that deep-compact: keep only the open tool transaction and the newest user message. */
export const DEEP_REASONS: ReadonlySet<CompactionReason> = new Set(["verify-failed", "escalated", "context-length"]);

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
      if (t.cause === "overhead" || (t.closed === 0 && !t.deep && t.reason !== "manual"))
        return { reason: "escalated", deep: true };
      // A deep compaction that removed nothing: only new input can make one useful.
      if (t.closed === 0)
        return this.userAfter && over(this.latestAfter, config.triggerRatio)
          ? { reason: "usage", deep: false }
          : undefined;
      if (this.firstAfter && this.firstAfter.tokens / window > config.verifyRatio)
        return { reason: "verify-failed", deep: true };
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
        this.terminal = {
          seq: event.seq,
          reason: data.reason as CompactionReason,
          kind: "end",
          deep: data.deep ?? DEEP_REASONS.has(data.reason as CompactionReason),
          closed: data.closed ?? (data.throughSeq ? 1 : 0),
          ...(data.cause ? { cause: data.cause } : {}),
        };
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
