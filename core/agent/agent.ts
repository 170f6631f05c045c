import {
  DEFAULT_CONTEXT_WINDOW,
  type AgentEvent,
  type AssistantMessageData,
  type ContentBlock,
  type ToolCallBlock,
} from "../protocol";
import type { Session } from "../session";
import { LlmError } from "../llm/types";
import type { ToolRegistry } from "../tools/registry";
import { Emitter, type Unsubscribe } from "../util/emitter";
import { CompactionImpossibleError, Compactor, ContextChars, type CompactionOutcome } from "../compaction";
import { SessionApprovals, settingsForPolicy, type ApprovalSettings } from "./approval";
import type { AgentOptions, TurnOutcome } from "./agent-options";
import type { AgentEventBody } from "./events";
import { Inbox, type InboxKind } from "./inbox";
import { callModel, errorFacts, type ModelCallContext } from "./model-call";
import { DEFAULT_RETRY, type RetryPolicy } from "./retry";
import { ensureFallbackTitle, writeModelTitle } from "./titles";
import { runToolCalls } from "./tool-runner";
import { ToolCallIds } from "./tool-call-ids";
import { hop } from "../util/hop-trace";

export type { AgentOptions, CallSettings, TurnEndReason, TurnOutcome } from "./agent-options";

const toContent = (input: string | ContentBlock[]): ContentBlock[] =>
  typeof input === "string" ? [{ type: "text", text: input }] : input;

/**
 * The agent loop of DESIGN §7 over one session: inbox → turn/start → steps (claim input,
 * user/message, request/header, stream + assemble + draft, assistant/message, tools,
 * step/end) → turn/end. One turn runs at a time; `cancel()` stops the running one.
 */
export class Agent {
  private readonly inbox = new Inbox();
  private readonly retry: RetryPolicy;
  private compactor: Compactor | undefined;
  /** The model's window is unknown: usage and compaction measure against DEFAULT_CONTEXT_WINDOW, and the usage event says so. */
  private windowAssumed = false;
  private abort: AbortController | undefined;
  private loop: Promise<TurnOutcome[]> | undefined;
  /** The system prompt last logged (a request/header repeats it only when it changed). */
  private readonly sent: { system?: string } = {};
  private rulesText = "";
  private readonly contextChars: ContextChars;
  private readonly events = new Emitter<{ event: [AgentEvent] }>();
  private readonly approvals: SessionApprovals;
  private readonly toolCallIds: ToolCallIds;

  constructor(private readonly options: AgentOptions) {
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.contextChars = new ContextChars(options.session);
    this.approvals = options.sessionApprovals ?? new SessionApprovals();
    this.toolCallIds = new ToolCallIds(options.session);
  }

  /** The loop's typed events (drafts, tools, approvals, usage, turns, notices); several listeners may subscribe. */
  onEvent(listener: (event: AgentEvent) => void): Unsubscribe {
    return this.events.on("event", listener);
  }

  private emit(body: AgentEventBody): void {
    const { session } = this.options;
    this.events.emit("event", { ...body, sessionId: session.id, agentId: session.agentId } as AgentEvent);
  }

  /** Logged (off the Surface) so a reopened chat shows it too; emitted for hosts that print as they go. */
  private notice(message: string, level: "info" | "warning" | "error" = "warning"): void {
    const { session } = this.options;
    const seq = session.readOnly ? undefined : session.append("notice", { level, message }).seq;
    this.emit({ type: "notice", level, message, ...(seq ? { seq } : {}) });
  }

  private approvalSettings(): ApprovalSettings {
    const { approval } = this.options;
    if (typeof approval === "function") return approval();
    return typeof approval === "string" ? settingsForPolicy(approval) : approval;
  }

  get session(): Session {
    return this.options.session;
  }
  get running(): boolean {
    return this.loop !== undefined;
  }

  /** Swaps the tool set offered from the next model call on (the host's tools changed). */
  setTools(tools: ToolRegistry): void {
    this.options.tools = tools;
  }

  /** Queues input for the next turn. */
  followUp(input: string | ContentBlock[]): void {
    this.push("followup", input);
  }
  /** Queues input for the next step of the running turn. */
  steer(input: string | ContentBlock[]): void {
    this.push("steer", input);
  }

  /**
   * Runs the failed turn again: a turn with no new user message (the Surface already ends
   * with the failed request's input). `failedTurnEnd` is the seq of its `turn/end`.
   */
  retryTurn(failedTurnEnd: number): void {
    if (this.running) throw new Error("a turn is running: nothing to retry");
    this.inbox.push("retry", [], { retryOf: failedTurnEnd });
  }

  /** Runs turns until the inbox is empty. Calling it while running joins the same run. */
  run(): Promise<TurnOutcome[]> {
    this.loop ??= (async () => {
      const outcomes: TurnOutcome[] = [];
      this.options.session.setRunning(true);
      try {
        while (this.inbox.size > 0) outcomes.push(await this.turn());
      } finally {
        this.loop = undefined;
        this.options.session.setRunning(false);
      }
      return outcomes;
    })();
    return this.loop;
  }

  /** Stops the running turn: the stream is aborted, tools get the signal. */
  cancel(reason = "cancelled by the user"): void {
    this.abort?.abort(new LlmError("aborted", reason));
  }

  /**
   * Compacts now (the "compact now" command). Between turns it holds the agent's abort,
   * so `cancel()` (Cancel Run, closing the runtime) stops its summary request as it
   * stops a turn; `signal` stops it too (the progress notification's Cancel).
   */
  async compactNow(signal?: AbortSignal): Promise<CompactionOutcome> {
    const compactor = await this.getCompactor();
    const own = this.abort ? undefined : (this.abort = new AbortController());
    const signals = [own?.signal, signal].filter((s): s is AbortSignal => s !== undefined);
    try {
      return await compactor.compact("manual", signals.length > 1 ? AbortSignal.any(signals) : signals[0]);
    } finally {
      if (own && this.abort === own) this.abort = undefined;
    }
  }

  private push(kind: InboxKind, input: string | ContentBlock[]): void {
    const content = toContent(input);
    if (content.length === 0) throw new Error("empty input");
    const { session } = this.options;
    // Input that waits for a running turn is logged at once, so every view shows it queued.
    const queuedSeq = this.running && !session.readOnly ? session.append("user/queued", { content }).seq : undefined;
    this.inbox.push(kind, content, queuedSeq ? { queuedSeq } : {});
  }

  private async getCompactor(): Promise<Compactor> {
    if (this.compactor) return this.compactor;
    const { llm, model, contextWindow } = this.options;
    const known =
      contextWindow ?? (await llm.capabilities(model.provider, model.model).catch(() => undefined))?.contextWindow;
    // Unknown everywhere (table, server, profile): the meter, the status bar and compaction all measure against one
    // stated default, said once in the meter's tooltip instead of a banner; a session never grows unbounded.
    this.windowAssumed = !known;
    const window = known ?? DEFAULT_CONTEXT_WINDOW;
    this.compactor = new Compactor({
      session: this.options.session,
      storage: this.options.storage,
      llm,
      provider: model.provider,
      model: model.model,
      contextWindow: window,
      ...(this.options.compaction ? { config: this.options.compaction } : {}),
    });
    return this.compactor;
  }

  private async turn(): Promise<TurnOutcome> {
    const { session, maxSteps = 50 } = this.options;
    const abort = (this.abort = new AbortController());
    const compactor = await this.getCompactor();
    hop("agent compactor");
    let titleTask: Promise<void> | undefined;
    let steps = 0;
    let answer: AssistantMessageData | undefined;
    let outcome: TurnOutcome | undefined;
    const retryOf = this.inbox.peek()?.retryOf;
    session.append("turn/start", retryOf ? { retryOf } : {});
    hop("turn/start");
    this.emit({ type: "turn-started" });
    try {
      while (!outcome) {
        if (steps >= maxSteps) {
          outcome = { reason: "max-steps", steps };
          break;
        }
        steps++;
        session.append("step/start", { step: steps });
        const inputs = steps === 1 ? this.inbox.claimAll() : this.inbox.claimSteers();
        for (const input of inputs) {
          if (input.kind === "retry") continue;
          const seq = session.append(
            "user/message",
            {
              content: input.content,
              ...(input.kind === "steer" ? { origin: "steer" as const } : {}),
              ...(input.queuedSeq ? { queuedSeq: input.queuedSeq } : {}),
            },
            { surface: "append" },
          ).seq;
          if (session.title.title === undefined) {
            ensureFallbackTitle(session, seq, input.content);
            if (this.options.titles === "llm")
              titleTask = writeModelTitle(
                session,
                this.options.llm,
                this.options.model,
                seq,
                input.content,
                abort.signal,
              ).catch(() => {});
          }
        }
        // After the claim: a deep compaction keeps the newest user message.
        hop("user/message");
        await this.compactOrWarn(compactor, abort.signal, "step");
        hop("agent compacted");
        await this.loadRules();
        hop("agent rules");
        const result = await callModel(this.callContext(compactor), abort.signal);
        if (result.kind === "error") {
          outcome = { reason: abort.signal.aborted ? "cancelled" : "error", steps, error: result.error };
        } else {
          answer = result.message;
          const calls = result.message.content.filter((b): b is ToolCallBlock => b.type === "tool-call");
          if (calls.length > 0) await this.runTools(calls, abort.signal);
          if (result.interrupted || abort.signal.aborted) outcome = { reason: "cancelled", steps };
          else if (calls.length === 0 && this.inbox.pendingSteers() === 0) outcome = { reason: "completed", steps };
        }
        session.append("step/end", { step: steps });
      }
      if (!abort.signal.aborted) await this.compactOrWarn(compactor, abort.signal, "turn-end");
      await titleTask;
    } catch (err) {
      outcome = { reason: abort.signal.aborted ? "cancelled" : "error", steps, error: err as Error };
    } finally {
      this.abort = undefined;
    }
    const end = outcome ?? { reason: "error" as const, steps };
    if (answer) end.answer = answer;
    if (!session.readOnly) {
      session.append("turn/end", {
        reason: end.reason,
        ...(end.error && end.reason === "error"
          ? errorFacts(end.error, () => this.options.endpoint?.(this.options.model.provider))
          : end.error
            ? { error: end.error.message }
            : {}),
      });
      await this.options.storage.flush(session);
    }
    this.emit({ type: "turn-ended", reason: end.reason, ...(end.error ? { error: end.error.message } : {}) });
    return end;
  }

  /** After the step's input is logged (its attachments count as touched); a failure keeps the last rules and says so. */
  private async loadRules(): Promise<void> {
    if (!this.options.rules) return;
    try {
      this.rulesText = await this.options.rules();
    } catch (error) {
      this.notice(
        `the project's rules files could not be read, continuing with the last ones: ${(error as Error).message}`,
      );
    }
  }

  /**
   * A failed compaction does not fail the turn: the call may still fit, and a
   * context-length error forces another attempt. Cancellation still propagates.
   */
  private async compactOrWarn(compactor: Compactor, signal: AbortSignal, at: "step" | "turn-end"): Promise<void> {
    try {
      await compactor.runPending(signal, at);
    } catch (error) {
      if (signal.aborted || error instanceof CompactionImpossibleError) throw error;
      this.notice(`compaction failed, continuing without it: ${(error as Error).message}`);
    }
  }

  /** What the stateless model call reads (model-call.ts), from this agent's options and state. */
  private callContext(compactor: Compactor): ModelCallContext {
    const { session, storage, llm, tools, model, workspace, instructions, now, random, endpoint } = this.options;
    return {
      session,
      storage,
      llm,
      tools,
      model,
      compactor,
      contextChars: this.contextChars,
      toolCallIds: this.toolCallIds,
      prompt: {
        workspace,
        rules: this.rulesText,
        ...(instructions !== undefined && { instructions }),
        ...(now && { now }),
      },
      sent: this.sent,
      retry: this.retry,
      ...(random && { random }),
      windowAssumed: this.windowAssumed,
      ...(endpoint && { endpoint }),
      emit: (body) => this.emit(body),
      notice: (message) => this.notice(message),
    };
  }

  private async runTools(calls: ToolCallBlock[], signal: AbortSignal): Promise<void> {
    const { session, tools, approve, workspace, env, forbiddenKinds, agentName } = this.options;
    await runToolCalls(calls, {
      session,
      tools,
      approval: this.approvalSettings(),
      ...(approve ? { approve } : {}),
      restricted: this.options.restricted?.(),
      ...(forbiddenKinds ? { forbiddenKinds } : {}),
      ...(agentName ? { agentName } : {}),
      remembered: this.approvals,
      context: { root: workspace.root, signal, ...(env ? { env } : {}) },
      emit: (event) => this.emit(event),
      ...(this.options.checkpoints ? { checkpoints: this.options.checkpoints } : {}),
    });
  }
}
