import { z } from "zod";
import { ContentBlock, ToolResultPart } from "./content";
import { RefusedBy } from "./tool-details";
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
});

export const AssistantMessageData = z.looseObject({
  content: z.array(ContentBlock),
  usage: Usage.optional(),
  finishReason: FinishReason.optional(),
  interrupted: z.boolean().optional(),
  replayState: ReplayState.optional(),
  provider: z.string().optional(),
  model: z.string().optional(),
});

export const ToolResultData = z.looseObject({
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  content: z.array(ToolResultPart),
  isError: z.boolean().optional(),
  /** Set when recovery closed a call whose outcome is not known. */
  synthetic: z.enum(["not-started", "outcome-unknown", "cancelled"]).optional(),
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
  /** "session": the user allowed this tool (for commands: this command line) for the rest of the session. */
  scope: z.enum(["once", "session"]).optional(),
  reason: z.string().optional(),
});

export const TitleSource = z.object({ kind: z.enum(["fallback", "llm", "user"]) });
export const SessionTitleData = z.looseObject({
  title: z.string().min(1).max(500),
  messageSeqs: z.array(z.number().int().positive()),
  source: TitleSource,
});

export const TurnStartData = z.looseObject({ turn: z.number().int().positive().optional() });
export const TurnEndData = z.looseObject({
  reason: z.enum(["completed", "cancelled", "error", "max-steps", "interrupted"]),
  error: z.string().optional(),
});
export const StepStartData = z.looseObject({ step: z.number().int().positive().optional() });
export const StepEndData = z.looseObject({ step: z.number().int().positive().optional() });
export const RequestHeaderData = z.looseObject({
  provider: z.string(),
  model: z.string(),
  system: z.string().optional(),
  tools: z.array(z.string()).optional(),
  contextWindow: z.number().int().positive().optional(),
});

/** Schemas by type. Types not listed here (compaction/*, future types) keep any JSON data. */
export const EVENT_DATA_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  "user/message": UserMessageData,
  "assistant/message": AssistantMessageData,
  "tool/result": ToolResultData,
  "tool/call": ToolCallData,
  "tool/approval": ToolApprovalData,
  "session/title": SessionTitleData,
  "turn/start": TurnStartData,
  "turn/end": TurnEndData,
  "step/start": StepStartData,
  "step/end": StepEndData,
  "request/header": RequestHeaderData,
};

export type UserMessageData = z.infer<typeof UserMessageData>;
export type AssistantMessageData = z.infer<typeof AssistantMessageData>;
export type ToolResultData = z.infer<typeof ToolResultData>;
export type ToolCallData = z.infer<typeof ToolCallData>;
export type ToolApprovalData = z.infer<typeof ToolApprovalData>;
export type SessionTitleData = z.infer<typeof SessionTitleData>;
export type TurnEndData = z.infer<typeof TurnEndData>;
export type RequestHeaderData = z.infer<typeof RequestHeaderData>;

/** Data type by event type, for typed appends. */
export interface KnownEventData {
  "user/message": UserMessageData;
  "assistant/message": AssistantMessageData;
  "tool/result": ToolResultData;
  "tool/call": ToolCallData;
  "tool/approval": ToolApprovalData;
  "session/title": SessionTitleData;
  "turn/start": z.infer<typeof TurnStartData>;
  "turn/end": TurnEndData;
  "step/start": z.infer<typeof StepStartData>;
  "step/end": z.infer<typeof StepEndData>;
  "request/header": RequestHeaderData;
}
export type EventData<T extends string> = T extends keyof KnownEventData ? KnownEventData[T] : unknown;
