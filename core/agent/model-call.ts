import { randomUUID } from "node:crypto";
import { contextTokens, type AssistantMessageData, type GenerateOptions, type RequestHeaderData } from "../protocol";
import type { Compactor, ContextChars } from "../compaction";
import { sentTotal } from "../compaction/measure";
import { BlockAssembler } from "../llm/assembler";
import { LlmError, type LlmClient } from "../llm/types";
import type { Session, SessionStoragePort } from "../session";
import type { ToolRegistry } from "../tools/registry";
import type { CallSettings } from "./agent-options";
import { DraftWriter } from "./draft-writer";
import type { AgentEventBody } from "./events";
import { retryDelay, sleep, type RetryPolicy } from "./retry";
import { buildSystemPrompt, type WorkspaceFacts } from "./system-prompt";
import type { ToolCallIds } from "./tool-call-ids";
import { hop } from "../util/hop-trace";

/** Everything one model call reads; the only state it changes is the session's log and `sent`. */
export interface ModelCallContext {
  session: Session;
  storage: SessionStoragePort;
  llm: LlmClient;
  tools: ToolRegistry;
  model: CallSettings;
  compactor: Compactor;
  contextChars: ContextChars;
  toolCallIds: ToolCallIds;
  /** What the system prompt is built from, per attempt (the tools may change between attempts). */
  prompt: { workspace: WorkspaceFacts; instructions?: string; rules: string; now?: () => Date };
  /** The system prompt last logged in a request/header: a header repeats it only when it changed. */
  sent: { system?: string };
  retry: RetryPolicy;
  random?: () => number;
  /** The model's window is unknown (DEFAULT_CONTEXT_WINDOW is assumed): errors and usage say so. */
  windowAssumed: boolean;
  endpoint?: (provider: string) => Endpoint;
  emit(body: AgentEventBody): void;
  notice(message: string): void;
}

export type ModelCallResult =
  { kind: "message"; message: AssistantMessageData; interrupted: boolean } | { kind: "error"; error: Error };

const tokens = (n: number) => Math.round(n).toLocaleString("en-US");
/** The output reservation for the one retry of a "too long" request far under the window. */
const loweredReservation = (current: number | undefined) =>
  Math.max(256, Math.min(1024, Math.floor((current ?? 2048) / 2)));

/**
 * One model call with retries, as a function of what it is given (pi-mono's agent-loop style): it logs the
 * request/header of each attempt, streams and assembles the answer (the draft on disk as it grows), and appends the
 * assistant message (complete or interrupted) or each request/error. The turn loop (`Agent`) owns the state.
 */
export async function callModel(ctx: ModelCallContext, signal: AbortSignal): Promise<ModelCallResult> {
  const { session, llm, model, tools, storage, compactor } = ctx;
  let contextRetried = false;
  /** Set once a context-length error on a request far under the window was retried with less output reserved. */
  let maxTokens = model.maxTokens;
  let reservationLowered = false;
  for (let attempt = 1; ; attempt++) {
    const specs = tools.specs();
    const system = buildSystemPrompt(
      ctx.prompt.workspace,
      specs,
      ctx.prompt.now?.() ?? new Date(),
      ctx.prompt.instructions,
      ctx.prompt.rules,
    );
    const messages = [...session.deriveMessages()];
    // The request this attempt's answer comes from: its `sources` (DESIGN §3).
    const header = session.append("request/header", {
      provider: model.provider,
      model: model.model,
      ...(system !== ctx.sent.system ? { system } : {}),
      tools: specs.map((s) => s.name),
      ...(compactor.contextWindow ? { contextWindow: compactor.contextWindow } : {}),
      attempt,
      chars: ctx.contextChars.sent(system, specs, messages),
      ...(reservationLowered && maxTokens ? { maxTokens } : {}),
    });
    ctx.sent.system = system;
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
      (blocks) => ctx.emit({ type: "draft", draftId, blocks: [...blocks] }),
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
    await drafts.settle().catch((err) => ctx.notice(`could not write the draft: ${(err as Error).message}`));
    ctx.emit({ type: "draft-cleared", draftId });

    if (failure === undefined && !signal.aborted) {
      const message = ctx.toolCallIds.unique({
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
      emitUsage(ctx, message);
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
    const size = kind === "context-length" ? requestSize(header.data as RequestHeaderData, compactor) : undefined;
    const lowerReservation = size?.farUnder === true && !reservationLowered;
    const contextRecovery = kind === "context-length" && !contextRetried && !size?.farUnder;
    const delay =
      lowerReservation || contextRecovery
        ? 0
        : kind === "context-length"
          ? undefined
          : retryDelay(error, attempt, ctx.retry, ctx.random);
    const endpoint = ctx.endpoint?.(model.provider);
    session.append("request/error", {
      attempt,
      kind,
      message: error.message,
      ...(error instanceof LlmError && error.details.status ? { status: error.details.status } : {}),
      ...(partialBlocks.length > 0 ? { partial: partialBlocks } : {}),
      ...(delay !== undefined ? { retryInMs: delay } : {}),
      ...(endpoint?.server ? { server: endpoint.server } : {}),
      ...(endpoint ? { setting: settingFor(endpoint, kind) } : {}),
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
        ? ` Set the model's real context window in ${endpoint.windowSetting}.`
        : " Set the model's real context window in its provider profile.";
      return {
        kind: "error",
        error: new LlmError(
          "context-length",
          `${where} says the request is too long, but it is about ${tokens(size.tokens)} tokens (${tokens(size.chars)} characters) and the ${ctx.windowAssumed ? "assumed (model unknown)" : "configured"} context window is ${tokens(size.window)} tokens, even with the output reservation lowered to ${tokens(maxTokens ?? 0)} tokens: the server's window is smaller than configured (it said: ${error.message}).${fix}`,
          error instanceof LlmError ? error.details : {},
        ),
      };
    }
    if (contextRecovery) {
      // The provider says the request is too long and gave no usage: fold and retry once.
      contextRetried = true;
      ctx.notice("the provider reported the context is too long: compacting and retrying once");
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
function requestSize(
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

function emitUsage(ctx: ModelCallContext, message: AssistantMessageData): void {
  if (!message.usage) return;
  const contextWindow = ctx.compactor.contextWindow;
  ctx.emit({
    type: "usage",
    usage: message.usage,
    ...(contextWindow ? { contextWindow, ratio: contextTokens(message.usage) / contextWindow } : {}),
    ...(ctx.windowAssumed ? { windowAssumed: true as const } : {}),
  });
}

/** A failed turn's error as logged: the message (naming the server and the setting for provider errors) and its facts. */
export function errorFacts(
  error: Error,
  endpointOf: () => Endpoint | undefined,
): { error: string; errorKind?: string; server?: string; setting?: string } {
  if (!(error instanceof LlmError) || error.kind === "aborted") return { error: error.message };
  const endpoint = endpointOf();
  const setting = endpoint && settingFor(endpoint, error.kind);
  const already = endpoint?.server && error.message.includes(endpoint.server);
  const where = endpoint?.server && !already ? ` (server ${endpoint.server}; check ${setting})` : "";
  return {
    error: `${error.message}${where}`,
    errorKind: error.kind,
    ...(endpoint?.server ? { server: endpoint.server } : {}),
    ...(setting ? { setting } : {}),
  };
}

/** A provider's server (host:port), where it is configured, and where its model's context window is. */
export interface Endpoint {
  server?: string;
  setting: string;
  windowSetting: string;
}

/** The one place to look for an error of `kind`: "context too long" is the window's, every other the server's. */
function settingFor(endpoint: Endpoint, kind: string): string {
  return kind === "context-length" ? endpoint.windowSetting : endpoint.setting;
}
