import { contextTokens, type Usage } from "../protocol";
import type { Session } from "../session";
import type { LlmClient } from "../llm/types";
import type { SessionStoragePort } from "../session";
import { CompactionConfig, type CompactionSettings } from "./config";
import { foldSurface } from "./fold";
import { selectPrefix } from "./select";
import { summarise, transcriptOf } from "./summarize";

export type CompactionReason = "usage" | "verify-failed" | "context-length" | "manual";

export interface CompactionOutcome {
  reason: CompactionReason;
  folded: number;
  /** Set when a prefix was closed into a segment. */
  throughSeq?: number;
  summaryChars?: number;
}

export interface CompactorOptions {
  session: Session;
  storage: Pick<SessionStoragePort, "closePrefix">;
  llm: LlmClient;
  provider: string;
  model: string;
  /** Unknown windows disable the automatic trigger (nothing is guessed). */
  contextWindow: number | undefined;
  config?: CompactionSettings;
}

/**
 * Usage-driven compaction (DESIGN §8): real usage ≥ 95 % of the window schedules it;
 * before the next call the Surface is folded and the prefix summarised and closed into
 * a segment; the next real usage must be ≤ 50 %, else a deep compaction follows.
 */
export class Compactor {
  readonly config: CompactionConfig;
  private scheduled: CompactionReason | undefined;
  private verifying = false;

  constructor(private readonly options: CompactorOptions) {
    this.config = CompactionConfig.parse(options.config ?? {});
  }

  get contextWindow(): number | undefined {
    return this.options.contextWindow;
  }

  /** The reason a compaction is due before the next call, if one is. */
  get pending(): CompactionReason | undefined {
    return this.scheduled;
  }

  /** Feeds the provider's real usage of the call that just completed. */
  observe(usage: Usage | undefined): void {
    const window = this.options.contextWindow;
    if (!usage || !window) return;
    const ratio = contextTokens(usage) / window;
    if (this.verifying) {
      this.verifying = false;
      if (ratio > this.config.verifyRatio) this.scheduled = "verify-failed";
      return;
    }
    if (ratio >= this.config.triggerRatio) this.scheduled = "usage";
  }

  /** Runs the scheduled compaction, if any. */
  async runPending(signal?: AbortSignal): Promise<CompactionOutcome | undefined> {
    const reason = this.scheduled;
    if (!reason) return undefined;
    return this.compact(reason, signal);
  }

  /**
   * Folds and closes a prefix now. A deep compaction keeps no retained tail. A failure
   * (the summariser's provider, the disk) is logged as `compaction/error` and thrown;
   * the schedule is cleared so the next real usage decides again.
   */
  async compact(reason: CompactionReason, signal?: AbortSignal): Promise<CompactionOutcome> {
    const { session } = this.options;
    const deep = reason === "verify-failed" || reason === "context-length";
    session.append("compaction/start", { reason, deep, contextWindow: this.options.contextWindow ?? null });
    try {
      return await this.run(reason, deep, signal);
    } catch (error) {
      this.scheduled = undefined;
      if (!session.readOnly) session.append("compaction/error", { reason, message: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  private async run(reason: CompactionReason, deep: boolean, signal: AbortSignal | undefined): Promise<CompactionOutcome> {
    const { session } = this.options;
    const outcome: CompactionOutcome = { reason, folded: foldSurface(session, this.config) };
    const window = this.options.contextWindow ?? 0;
    const keepChars = deep ? 0 : Math.floor(window * this.config.retainRatio * this.config.charsPerToken);
    const selection = selectPrefix(session, keepChars);
    if (selection) {
      const closedEvents = selection.closed.map((seq) => session.event(seq)!);
      const summary = await summarise(session.summary?.text, transcriptOf(closedEvents), {
        llm: this.options.llm,
        provider: this.options.provider,
        model: this.options.model,
        maxTokens: this.config.summaryMaxTokens,
        chunkChars: this.config.summaryChunkChars,
        ...(signal ? { signal } : {}),
      });
      await this.options.storage.closePrefix(session, selection.throughSeq, summary);
      outcome.throughSeq = selection.throughSeq;
      outcome.summaryChars = summary.length;
    }
    session.append("compaction/end", { ...outcome });
    this.scheduled = undefined;
    this.verifying = true;
    return outcome;
  }
}
