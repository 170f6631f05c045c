import { z } from "zod";
import { RestoreEndData, RestoreFileData, RestoreStartData, ToolCheckpoint } from "./checkpoint";
import { ContentBlock, ToolResultPart } from "./content";
import { ApprovalPreview, RefusedBy, ToolDetails } from "./tool-details";
import { FinishReason, ReplayState, Usage } from "./usage";

/** How a Surface-eligible event changes the model-visible Surface (DESIGN §3). */
export const SurfaceOp = z.union([
  z.literal("append"),
  z.object({
    op: z.literal("replace"),
    start: z.number().int().positive(),
    end: z.number().int().positive(),
  }),
]);
export type SurfaceOp = z.infer<typeof SurfaceOp>;

/** The only event types that may enter the Surface. */
export const SURFACE_TYPES = ["user/message", "assistant/message", "tool/result"] as const;
export type SurfaceType = (typeof SURFACE_TYPES)[number];
export function isSurfaceType(type: string): type is SurfaceType {
  return (SURFACE_TYPES as readonly string[]).includes(type);
}

/**
 * One entry of the append-only log. `data` of a known type is validated against its
 * schema; unknown (future) types are kept as they are.
 */
export const SessionEvent = z.object({
  seq: z.number().int().positive(),
  time: z.number().int().nonnegative(),
  type: z.string().min(1).max(128),
  data: z.unknown(),
  surface: SurfaceOp.optional(),
  sources: z.array(z.number().int().positive()).optional(),
});
export type SessionEvent = z.infer<typeof SessionEvent>;

// ---- data schemas of the known event types. Loose objects: fields added by a
// later version round-trip untouched.

export const UserMessageData = z.looseObject({
  content: z.array(ContentBlock),
  /** Why a non-human user message exists (e.g. a compaction checkpoint). */
  origin: z.enum(["human", "steer", "checkpoint", "system"]).optional(),
  /** The `user/queued` event this steer was shown as while it waited (the chat moves it here). */
  queuedSeq: z.number().int().positive().optional(),
});

/** A steer typed while the agent ran, waiting for the next step (off the Surface; the chat shows it queued at once). */
export const UserQueuedData = z.looseObject({ content: z.array(ContentBlock) });

export const AssistantMessageData = z.looseObject({
  content: z.array(ContentBlock),
  usage: Usage.optional(),
  finishReason: FinishReason.optional(),
  interrupted: z.boolean().optional(),
  replayState: ReplayState.optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
  /** The draft this message completed: recovery drops a leftover draft whose message is logged. */
  draftId: z.string().min(1).optional(),
});

export const ToolResultData = z.looseObject({
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  content: z.array(ToolResultPart),
  isError: z.boolean().optional(),
  /** Set when recovery closed a call whose outcome is not known. */
  synthetic: z.enum(["not-started", "outcome-unknown", "cancelled"]).optional(),
  /** How the call ended, as the live run showed it (a stopped command is "cancelled", not "failed"). */
  outcome: z.enum(["done", "failed", "refused", "cancelled"]).optional(),
  /** The edit's diff or the command's exit facts (for a refused edit: the diff it proposed), so a reopened card shows them. */
  details: z.union([ToolDetails, ApprovalPreview]).optional(),
  /** The files the call changed, with their content before and after (restore, issue 24). */
  checkpoint: ToolCheckpoint.optional(),
});

export const ToolCallData = z.looseObject({
  toolCallId: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});

export const ToolApprovalData = z.looseObject({
  toolCallId: z.string().min(1),
  decision: z.enum(["approved", "denied"]),
  by: RefusedBy,
  /**
   * "session": the user allowed this tool (for commands: this command line) for the rest of
   * the session; "always": this MCP tool (or its whole server) in this folder from now on.
   */
  scope: z.enum(["once", "session", "always"]).optional(),
  reason: z.string().optional(),
});

/** The user undid an applied edit from its card (one step, back to the text before it). */
export const ToolUndoData = z.looseObject({
  toolCallId: z.string().min(1),
  /** The file, relative to the workspace folder, as the edit named it. */
  path: z.string().min(1),
});

export const TitleSource = z.object({ kind: z.enum(["fallback", "llm", "user"]) });
export const SessionTitleData = z.looseObject({
  title: z.string().min(1).max(500),
  messageSeqs: z.array(z.number().int().positive()),
  source: TitleSource,
});

export const TurnStartData = z.looseObject({
  turn: z.number().int().positive().optional(),
  /** Seq of the failed turn's `turn/end` this turn retries (no new user message: the Surface already ends with it). */
  retryOf: z.number().int().positive().optional(),
});
export const TurnEndData = z.looseObject({
  reason: z.enum(["completed", "cancelled", "error", "max-steps", "interrupted"]),
  error: z.string().optional(),
  /** For an error: the neutral kind, the server (host:port) and the setting to check. */
  errorKind: z.string().optional(),
  server: z.string().optional(),
  setting: z.string().optional(),
});
export const StepStartData = z.looseObject({ step: z.number().int().positive().optional() });
export const StepEndData = z.looseObject({ step: z.number().int().positive().optional() });
export const RequestHeaderData = z.looseObject({
  provider: z.string(),
  model: z.string(),
  system: z.string().optional(),
  tools: z.array(z.string()).optional(),
  contextWindow: z.number().int().positive().optional(),
  /** Characters the request sent; with the answer's real usage, the session's tokens per character. */
  chars: z
    .object({
      system: z.number().int().nonnegative(),
      tools: z.number().int().nonnegative(),
      messages: z.number().int().nonnegative(),
    })
    .optional(),
});

/** A failed model call: it stays in the log (with what it had streamed), off the Surface. */
export const RequestErrorData = z.looseObject({
  attempt: z.number().int().positive(),
  kind: z.string().min(1),
  message: z.string(),
  status: z.number().int().optional(),
  partial: z.array(ContentBlock).optional(),
  /** Set when the loop retries after this long. */
  retryInMs: z.number().nonnegative().optional(),
  /** host:port of the server that failed, and the setting (or variable) that points at it. */
  server: z.string().optional(),
  setting: z.string().optional(),
});

/** Something the loop told the user (a compaction that failed but did not stop the turn, an unknown window). */
export const NoticeData = z.looseObject({ level: z.enum(["info", "warning", "error"]), message: z.string() });

export const CompactionStartData = z.looseObject({
  reason: z.string().min(1),
  deep: z.boolean().optional(),
  contextWindow: z.number().int().positive().nullable().optional(),
});
/** Why a compaction closed nothing (issue 10). */
export const CompactionCause = z.enum([
  /** Everything on the Surface is the open tool transaction and the newest user message. */
  "open-transaction",
  /** The retained tail already holds every message. */
  "tail-holds-all",
  /** The window is smaller than the system prompt and tools: nothing a compaction removes helps. */
  "overhead",
]);
/** What one compaction did, and the measurements it was sized from (read back by the compaction ledger). */
export const CompactionEndData = z.looseObject({
  reason: z.string().min(1),
  deep: z.boolean().optional(),
  folded: z.number().int().nonnegative().optional(),
  /** Surface messages removed from the model context (closed into a segment). */
  closed: z.number().int().nonnegative().optional(),
  /** The prefix 1..throughSeq was closed into a segment. */
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
export const CompactionErrorData = z.looseObject({
  reason: z.string().min(1),
  message: z.string(),
});

/** Schemas by type. Types not listed here (future types) keep any JSON data. */
export const EVENT_DATA_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  "user/message": UserMessageData,
  "assistant/message": AssistantMessageData,
  "tool/result": ToolResultData,
  "tool/call": ToolCallData,
  "tool/approval": ToolApprovalData,
  "tool/undo": ToolUndoData,
  "session/title": SessionTitleData,
  "turn/start": TurnStartData,
  "turn/end": TurnEndData,
  "step/start": StepStartData,
  "step/end": StepEndData,
  "request/header": RequestHeaderData,
  "request/error": RequestErrorData,
  "compaction/start": CompactionStartData,
  "compaction/end": CompactionEndData,
  "compaction/error": CompactionErrorData,
  "user/queued": UserQueuedData,
  notice: NoticeData,
  "restore/start": RestoreStartData,
  "restore/file": RestoreFileData,
  "restore/end": RestoreEndData,
};

export type UserMessageData = z.infer<typeof UserMessageData>;
export type AssistantMessageData = z.infer<typeof AssistantMessageData>;
export type ToolResultData = z.infer<typeof ToolResultData>;
export type ToolCallData = z.infer<typeof ToolCallData>;
export type ToolApprovalData = z.infer<typeof ToolApprovalData>;
export type ToolUndoData = z.infer<typeof ToolUndoData>;
export type SessionTitleData = z.infer<typeof SessionTitleData>;
export type TurnEndData = z.infer<typeof TurnEndData>;
export type RequestHeaderData = z.infer<typeof RequestHeaderData>;
export type RequestErrorData = z.infer<typeof RequestErrorData>;
export type CompactionStartData = z.infer<typeof CompactionStartData>;
export type CompactionEndData = z.infer<typeof CompactionEndData>;
export type CompactionCause = z.infer<typeof CompactionCause>;
export type CompactionErrorData = z.infer<typeof CompactionErrorData>;
export type UserQueuedData = z.infer<typeof UserQueuedData>;
export type NoticeData = z.infer<typeof NoticeData>;

/** Data type by event type, for typed appends. */
export interface KnownEventData {
  "user/message": UserMessageData;
  "assistant/message": AssistantMessageData;
  "tool/result": ToolResultData;
  "tool/call": ToolCallData;
  "tool/approval": ToolApprovalData;
  "tool/undo": ToolUndoData;
  "session/title": SessionTitleData;
  "turn/start": z.infer<typeof TurnStartData>;
  "turn/end": TurnEndData;
  "step/start": z.infer<typeof StepStartData>;
  "step/end": z.infer<typeof StepEndData>;
  "request/header": RequestHeaderData;
  "request/error": RequestErrorData;
  "compaction/start": CompactionStartData;
  "compaction/end": CompactionEndData;
  "compaction/error": CompactionErrorData;
  "user/queued": UserQueuedData;
  notice: NoticeData;
  "restore/start": RestoreStartData;
  "restore/file": RestoreFileData;
  "restore/end": RestoreEndData;
}
export type EventData<T extends string> = T extends keyof KnownEventData ? KnownEventData[T] : unknown;
