import { randomUUID } from "node:crypto";
import {
  contextTokens,
  DEFAULT_CONTEXT_WINDOW,
  type AgentEvent,
  type AssistantMessageData,
  type ContentBlock,
  type GenerateOptions,
  type ReasoningEffort,
  type RequestHeaderData,
  type ToolCallBlock,
} from "../protocol";
import { sentTotal } from "../compaction/measure";
import type { Session, SessionStoragePort } from "../session";
import { BlockAssembler } from "../llm/assembler";
import { LlmError, type LlmClient } from "../llm/types";
import type { ToolRegistry } from "../tools/registry";
import type { ToolKind } from "../tools/types";
import { Emitter, type Unsubscribe } from "../util/emitter";
import {
  CompactionImpossibleError,
  Compactor,
  ContextChars,
  type CompactionOutcome,
  type CompactionSettings,
} from "../compaction";
import {
  SessionApprovals,
  settingsForPolicy,
  type ApprovalPolicy,
  type ApprovalSettings,
  type ApproveFn,
} from "./approval";
import type { AgentEventBody } from "./events";
import { DraftWriter } from "./draft-writer";
import { Inbox, type InboxKind } from "./inbox";

import { DEFAULT_RETRY, retryDelay, sleep, type RetryPolicy } from "./retry";
import { buildSystemPrompt, type WorkspaceFacts } from "./system-prompt";
import { ensureFallbackTitle, writeModelTitle } from "./titles";
import { runToolCalls } from "./tool-runner";
import type { CheckpointRecorder } from "../checkpoints/recorder";
import { ToolCallIds } from "./tool-call-ids";
import { hop } from "../util/hop-trace";

export interface CallSettings {
  provider: string;
  model: string;
  reasoningEffort?: ReasoningEffort;
  maxTokens?: number;
  temperature?: number;
}

export interface AgentOptions {
  session: Session;
  storage: SessionStoragePort;
  llm: LlmClient;
  tools: ToolRegistry;
  model: CallSettings;
  workspace: WorkspaceFacts;
  /** What runs without asking: a CLI level, settings, or a function read at every call (settings changes apply). */
  approval: ApprovalPolicy | ApprovalSettings | (() => ApprovalSettings);
  approve?: ApproveFn;
  /** Why nothing may run (Restricted Mode), read at every call; undefined when runs are allowed. */
  restricted?: () => string | undefined;
  /** Tool kinds this agent never runs, whatever the approval settings. */
  forbiddenKinds?: readonly ToolKind[];
  /** The agent's name in refusals ("the ask agent does not run edit tools"). */
  agentName?: string;
  /** Added to the system prompt. */
  instructions?: string;
  /**
   * The project's rules section of the system prompt (core/rules), loaded before every
   * request so an edited rules file reaches the next one; "" when none applies.
   */
  rules?: () => Promise<string>;
  /** "Allow for this session" decisions (the host may keep them across agents of one session). */
  sessionApprovals?: SessionApprovals;
  maxSteps?: number;
  /** Overrides what the LLM layer knows of the model's window. */
  contextWindow?: number;
  compaction?: CompactionSettings;
  retry?: Partial<RetryPolicy>;
  /** "llm": after the fallback title, ask the model for a better one. */
  titles?: "fallback" | "llm";
  /** Environment for commands (scrubbed by the tool). */
  env?: NodeJS.ProcessEnv;
  /** Records what edits and commands change (restore, issue 24). */
  checkpoints?: CheckpointRecorder;
  /** The server a provider profile points at (host:port) and the setting that names it, for errors the user can act on. */
  endpoint?: (provider: string) => { server?: string; setting: string };
  now?: () => Date;
  random?: () => number;
}

export type TurnEndReason = "completed" | "cancelled" | "error" | "max-steps";
export interface TurnOutcome {
  reason: TurnEndReason;
  steps: number;
  error?: Error;
  /** The last assistant message of the turn, if any. */
  answer?: AssistantMessageData;
}

const tokens = (n: number) => Math.round(n).toLocaleString("en-US");
/** The output reservation for the one retry of a "too long" request far under the window. */
const loweredReservation = (current: number | undefined) =>
  Math.max(256, Math.min(1024, Math.floor((current ?? 2048) / 2)));

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
  private lastSystem: string | undefined;
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
        const result = await this.callModel(abort.signal, compactor);
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
          ? this.errorFacts(end.error)
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

  /** One model call with retries; appends the assistant message (complete or interrupted). */
  private async callModel(
    signal: AbortSignal,
    compactor: Compactor,
  ): Promise<
    { kind: "message"; message: AssistantMessageData; interrupted: boolean } | { kind: "error"; error: Error }
  > {
    const { session, llm, model, tools, storage } = this.options;
    let contextRetried = false;
    /** Set once a context-length error on a request far under the window was retried with less output reserved. */
    let maxTokens = model.maxTokens;
    let reservationLowered = false;
    for (let attempt = 1; ; attempt++) {
      const specs = tools.specs();
      const system = buildSystemPrompt(
        this.options.workspace,
        specs,
        this.options.now?.() ?? new Date(),
        this.options.instructions,
        this.rulesText,
      );
      const messages = [...session.deriveMessages()];
      // The request this attempt's answer comes from: its `sources` (DESIGN §3).
      const header = session.append("request/header", {
        provider: model.provider,
        model: model.model,
        ...(system !== this.lastSystem ? { system } : {}),
        tools: specs.map((s) => s.name),
        ...(compactor.contextWindow ? { contextWindow: compactor.contextWindow } : {}),
        attempt,
        chars: this.contextChars.sent(system, specs, messages),
        ...(reservationLowered && maxTokens ? { maxTokens } : {}),
      });
      this.lastSystem = system;
      hop("request/header");
      const request: GenerateOptions = {
        provider: model.provider,
        model: model.model,
        system,
        messages,
        tools: specs,
        sessionId: session.id,
        signal,
      };
      if (model.reasoningEffort) request.reasoningEffort = model.reasoningEffort;
      if (maxTokens) request.maxTokens = maxTokens;
      if (model.temperature !== undefined) request.temperature = model.temperature;

      const draftId = randomUUID();
      const assembler = new BlockAssembler();
      const drafts = new DraftWriter(
        storage,
        session,
        { draftId, provider: model.provider, model: model.model },
        undefined,
        undefined,
        (blocks) => this.emit({ type: "draft", draftId, blocks: [...blocks] }),
      );
      let failure: unknown;
      let chunks = 0;
      try {
        for await (const chunk of llm.stream(request)) {
          if (chunks++ === 0) hop("agent chunk");
          assembler.push(chunk);
          if (chunk.type !== "usage" && chunk.type !== "finish") drafts.update(() => assembler.blocks());
        }
      } catch (err) {
        failure = err;
      }
      await drafts.settle().catch((err) => this.notice(`could not write the draft: ${(err as Error).message}`));
      this.emit({ type: "draft-cleared", draftId });

      if (failure === undefined && !signal.aborted) {
        const message = this.toolCallIds.unique({
          ...assembler.message(),
          provider: model.provider,
          model: model.model,
          draftId,
        });
        // An empty answer stays in the log but off the Surface: providers reject empty
        // assistant messages in history.
        session.append(
          "assistant/message",
          message,
          message.content.length > 0 ? { surface: "append", sources: [header.seq] } : { sources: [header.seq] },
        );
        await storage.discardDraft(session);
        this.emitUsage(message, compactor.contextWindow);
        return { kind: "message", message, interrupted: false };
      }

      if (signal.aborted || (failure instanceof LlmError && failure.kind === "aborted")) {
        // Cancel keeps a non-empty partial answer; tool calls that did not run are dropped.
        const partial = assembler
          .blocks({ dropIncompleteToolCalls: true })
          .filter((b) => (b.type === "text" || b.type === "reasoning") && b.text.trim() !== "");
        if (partial.length > 0) {
          const message: AssistantMessageData = {
            content: partial,
            interrupted: true,
            finishReason: "aborted",
            provider: model.provider,
            model: model.model,
            draftId,
          };
          session.append("assistant/message", message, { surface: "append", sources: [header.seq] });
          await storage.discardDraft(session);
          return { kind: "message", message, interrupted: true };
        }
        await storage.discardDraft(session);
        return { kind: "error", error: failure instanceof Error ? failure : new LlmError("aborted", "cancelled") };
      }

      // A failed attempt stays in the log (with what it had streamed), out of the Surface.
      const error = failure instanceof Error ? failure : new Error(String(failure));
      const kind = error instanceof LlmError ? error.kind : "unknown";
      const partialBlocks = assembler.blocks({ dropIncompleteToolCalls: true });
      // A "too long" answer for a request far under the window is the server's own limit
      // (a local server's smaller window, or prompt + reserved output): nothing to compact.
      const size =
        kind === "context-length" ? this.requestSize(header.data as RequestHeaderData, compactor) : undefined;
      const lowerReservation = size?.farUnder === true && !reservationLowered;
      const contextRecovery = kind === "context-length" && !contextRetried && !size?.farUnder;
      const delay =
        lowerReservation || contextRecovery
          ? 0
          : kind === "context-length"
            ? undefined
            : retryDelay(error, attempt, this.retry, this.options.random);
      const endpoint = this.options.endpoint?.(model.provider);
      session.append("request/error", {
        attempt,
        kind,
        message: error.message,
        ...(error instanceof LlmError && error.details.status ? { status: error.details.status } : {}),
        ...(partialBlocks.length > 0 ? { partial: partialBlocks } : {}),
        ...(delay !== undefined ? { retryInMs: delay } : {}),
        ...(endpoint?.server ? { server: endpoint.server } : {}),
        ...(endpoint ? { setting: endpoint.setting } : {}),
      });
      await storage.discardDraft(session);
      if (lowerReservation) {
        reservationLowered = true;
        maxTokens = loweredReservation(maxTokens);
        continue;
      }
      if (size?.farUnder) {
        const where = endpoint?.server ? `the server at ${endpoint.server}` : "the provider";
        const fix = endpoint
          ? ` Set the model's real context window in ${endpoint.setting}.`
          : " Set the model's real context window in its provider profile.";
        return {
          kind: "error",
          error: new LlmError(
            "context-length",
            `${where} says the request is too long, but it is about ${tokens(size.tokens)} tokens (${tokens(size.chars)} characters) and the ${this.windowAssumed ? "assumed (model unknown)" : "configured"} context window is ${tokens(size.window)} tokens, even with the output reservation lowered to ${tokens(maxTokens ?? 0)} tokens: the server's window is smaller than configured (it said: ${error.message}).${fix}`,
            error instanceof LlmError ? error.details : {},
          ),
        };
      }
      if (contextRecovery) {
        // The provider says the request is too long and gave no usage: fold and retry once.
        contextRetried = true;
        this.notice("the provider reported the context is too long: compacting and retrying once");
        await compactor.compact("context-length", signal);
        continue;
      }
      if (delay === undefined) return { kind: "error", error };
      // The retry is the request/error just logged (with retryInMs): views show it as one line.
      try {
        await sleep(delay, signal);
      } catch {
        return { kind: "error", error: new LlmError("aborted", "cancelled while waiting to retry") };
      }
    }
  }

  /**
   * The request's measured size against the window; `farUnder` below a quarter of it (a
   * margin for the characters-per-token estimate; compaction would not help there).
   */
  private requestSize(
    header: RequestHeaderData,
    compactor: Compactor,
  ): { chars: number; tokens: number; window: number; farUnder: boolean } | undefined {
    const window = compactor.contextWindow;
    if (!window || !header.chars) return undefined;
    const chars = sentTotal(header.chars);
    const perChar = compactor.tokensPerChar ?? 1 / compactor.config.charsPerToken;
    const estimate = Math.ceil(chars * perChar);
    return { chars, tokens: estimate, window, farUnder: estimate < window / 4 };
  }

  /** A failed turn's error as logged: the message (naming the server and the setting for provider errors) and its facts. */
  private errorFacts(error: Error): { error: string; errorKind?: string; server?: string; setting?: string } {
    if (!(error instanceof LlmError) || error.kind === "aborted") return { error: error.message };
    const endpoint = this.options.endpoint?.(this.options.model.provider);
    const already = endpoint?.server && error.message.includes(endpoint.server);
    const where = endpoint?.server && !already ? ` (server ${endpoint.server}; check ${endpoint.setting})` : "";
    return {
      error: `${error.message}${where}`,
      errorKind: error.kind,
      ...(endpoint?.server ? { server: endpoint.server } : {}),
      ...(endpoint ? { setting: endpoint.setting } : {}),
    };
  }

  private emitUsage(message: AssistantMessageData, contextWindow: number | undefined): void {
    if (!message.usage) return;
    this.emit({
      type: "usage",
      usage: message.usage,
      ...(contextWindow ? { contextWindow, ratio: contextTokens(message.usage) / contextWindow } : {}),
      ...(this.windowAssumed ? { windowAssumed: true as const } : {}),
    });
  }
}
