import type { Session } from "../session";
import type { LlmClient } from "../llm/types";
import type { SessionStoragePort } from "../session";
import { CompactionConfig, type CompactionSettings } from "./config";
import { foldSurface } from "./fold";
import { eventChars } from "./measure";
import type { CompactionCause, CompactionEndData } from "../protocol";
import { CompactionLedger, DEEP_REASONS, type CompactionReason, type PendingCompaction } from "./ledger";
import { selectDeep, selectPrefix, type PrefixSelection } from "./select";
import { summarise, transcriptOf } from "./summarize";

export type { CompactionReason } from "./ledger";

export interface CompactionOutcome {
  reason: CompactionReason;
  folded: number;
  /** Surface messages closed into a segment. */
  closed: number;
  /** Set when a prefix was closed into a segment. */
  throughSeq?: number;
  summaryChars?: number;
  /** Why nothing was closed. */
  cause?: CompactionCause;
  note?: string;
}

/**
 * The session cannot continue: even a deep compaction leaves a context the window does
 * not hold. The message names the cause; the turn ends with it.
 */
export class CompactionImpossibleError extends Error {
  override readonly name = "CompactionImpossibleError";
}

export interface CompactorOptions {
  session: Session;
  storage: Pick<SessionStoragePort, "closePrefix">;
  llm: LlmClient;
  provider: string;
  model: string;
  /** Undefined disables the automatic trigger; the agent passes the stated default for an unknown window. */
  contextWindow: number | undefined;
  config?: CompactionSettings;
}

const tokens = (n: number) => Math.round(n).toLocaleString("en-US");

/**
 * Usage-driven compaction (DESIGN §8): real usage ≥ 95 % of the window schedules it;
 * the Surface is folded and a prefix summarised and closed into a segment, keeping a
 * tail sized from the session's measured tokens per character; the next real usage must
 * be ≤ 50 %, else a deep compaction follows. The cycle's state is read from the log
 * (`CompactionLedger`), so it survives restarts.
 */
export class Compactor {
  readonly config: CompactionConfig;
  private readonly ledger = new CompactionLedger();

  constructor(private readonly options: CompactorOptions) {
    this.config = CompactionConfig.parse(options.config ?? {});
  }

  get contextWindow(): number | undefined {
    return this.options.contextWindow;
  }

  /** The session's measured tokens per character (from real usage), if any yet. */
  get tokensPerChar(): number | undefined {
    this.ledger.sync(this.options.session);
    return this.ledger.tokensPerChar;
  }

  /** The compaction due before the next call, if one is. */
  get pending(): PendingCompaction | undefined {
    this.ledger.sync(this.options.session);
    return this.ledger.pending(this.config, this.options.contextWindow);
  }

  /**
   * Runs the pending compaction, if any. At the end of a turn only a normal one runs: a
   * deep one waits for the next step, whose new user message is the one it keeps.
   */
  async runPending(signal?: AbortSignal, at: "step" | "turn-end" = "step"): Promise<CompactionOutcome | undefined> {
    const pending = this.pending;
    if (!pending || (at === "turn-end" && pending.deep)) return undefined;
    return this.compact(pending.reason, signal);
  }

  /**
   * Folds and closes a prefix now. A failure (the summariser's provider, the disk) is
   * logged as `compaction/error` and thrown; the next real usage decides again. Throws
   * `CompactionImpossibleError` (after a `compaction/end` saying why) when the context
   * cannot be brought under the window.
   */
  async compact(reason: CompactionReason, signal?: AbortSignal): Promise<CompactionOutcome> {
    const { session } = this.options;
    const deep = DEEP_REASONS.has(reason);
    this.ledger.sync(session);
    session.append("compaction/start", { reason, deep, contextWindow: this.options.contextWindow ?? null });
    try {
      return await this.run(reason, deep, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!session.readOnly && !(error instanceof CompactionImpossibleError))
        session.append("compaction/error", { reason, message });
      throw error;
    }
  }

  private async run(
    reason: CompactionReason,
    deep: boolean,
    signal: AbortSignal | undefined,
  ): Promise<CompactionOutcome> {
    const { session } = this.options;
    const window = this.options.contextWindow;
    const measured = this.ledger.tokensPerChar;
    const perChar = measured ?? 1 / this.config.charsPerToken;
    const usageBefore = this.ledger.latestUsage;
    const end: CompactionEndData = {
      reason,
      deep,
      folded: foldSurface(session, this.config),
      closed: 0,
      ...(usageBefore !== undefined ? { usageBefore } : {}),
      ...(window ? { contextWindow: window } : {}),
      ...(measured ? { tokensPerChar: Number(measured.toPrecision(4)) } : {}),
    };

    // Sized from real usage only: the system prompt and tools alone do not fit.
    const sent = this.ledger.sent;
    const overhead = measured && sent ? measured * (sent.system + sent.tools) : 0;
    if (window && overhead >= window) {
      const note = `the system prompt and tools alone use ${tokens(overhead)} of ${tokens(window)} tokens`;
      session.append("compaction/end", { ...end, cause: "overhead", note });
      throw new CompactionImpossibleError(`${note}: raise the context window or offer fewer tools`);
    }

    const retainChars = deep ? 0 : Math.floor(((window ?? 0) * this.config.retainRatio) / perChar);
    if (!deep) end.retainChars = retainChars;
    const selection = deep ? selectDeep(session) : selectPrefix(session, retainChars);
    if (selection) await this.close(selection, end, signal);
    else {
      const surfaceChars = session.surface.nodes.reduce((n, seq) => n + eventChars(session.event(seq)!), 0);
      end.cause = !deep && surfaceChars <= retainChars ? "tail-holds-all" : "open-transaction";
      end.note =
        end.cause === "tail-holds-all"
          ? `the retained tail (${tokens(retainChars)} characters) already holds every message`
          : "everything on the Surface is the newest exchange: the open tool transaction and the newest user message";
    }
    // Nothing left to remove, and the provider said (by usage or error) it does not fit.
    const stuck = deep && !selection && window && (reason === "context-length" || (usageBefore ?? 0) >= window);
    if (stuck) {
      const used =
        usageBefore && usageBefore >= window
          ? `${tokens(usageBefore)} of ${tokens(window)} tokens`
          : `more than the ${tokens(window)}-token window`;
      end.note = `nothing is left to compact: the open tool transaction and the newest user message, with the system prompt and tools, use ${used}`;
    }
    session.append("compaction/end", end);
    if (stuck) throw new CompactionImpossibleError(end.note!);
    const outcome: CompactionOutcome = { reason, folded: end.folded ?? 0, closed: end.closed ?? 0 };
    if (end.throughSeq) outcome.throughSeq = end.throughSeq;
    if (end.summaryChars !== undefined) outcome.summaryChars = end.summaryChars;
    if (end.cause) outcome.cause = end.cause;
    if (end.note) outcome.note = end.note;
    return outcome;
  }

  /** Summarises the selection into the cumulative summary and closes it into a segment. */
  private async close(
    selection: PrefixSelection,
    end: CompactionEndData,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { session } = this.options;
    const closedEvents = selection.closed.map((seq) => session.event(seq)!);
    const restated = selection.restate !== undefined ? session.event(selection.restate) : undefined;
    const summary = await summarise(session.summary?.text, transcriptOf(closedEvents), {
      llm: this.options.llm,
      provider: this.options.provider,
      model: this.options.model,
      maxTokens: this.config.summaryMaxTokens,
      chunkChars: this.config.summaryChunkChars,
      ...(signal ? { signal } : {}),
    });
    await this.options.storage.closePrefix(session, selection.throughSeq, summary);
    if (restated) {
      const content = (restated.data as { content: never[] }).content;
      session.append("user/message", { content, origin: "checkpoint" }, { surface: "append" });
    }
    end.closed = selection.closed.length;
    end.throughSeq = selection.throughSeq;
    end.summary = summary;
    end.summaryChars = summary.length;
  }
}
