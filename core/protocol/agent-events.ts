import { z } from "zod";
import { ContentBlock } from "./content";
import { SessionEvent } from "./events";
import { ApprovalPreview, RefusedBy, ToolDetails, ToolUpdate } from "./tool-details";
import { Usage } from "./usage";

/**
 * The typed event stream a runtime emits for hosts (the CLI's printer, the VS Code
 * tree, status bar and chat). The chat webview's RPC forwards exactly these. Every
 * event names its session; several subscribers may listen.
 */
const Base = { sessionId: z.string().min(1), agentId: z.string().min(1) };

export const AgentEvent = z.discriminatedUnion("type", [
  /** An event entered the session log (after validation; not yet necessarily on disk). */
  z.object({ type: z.literal("session-event"), ...Base, event: SessionEvent }),
  /** The assembled blocks of the message being streamed so far (throttled like the draft file). */
  z.object({ type: z.literal("draft"), ...Base, draftId: z.string().min(1), blocks: z.array(ContentBlock) }),
  /** The draft ended: the final assistant message was appended, or the attempt failed / was cancelled. */
  z.object({ type: z.literal("draft-cleared"), ...Base, draftId: z.string().min(1) }),
  z.object({ type: z.literal("turn-started"), ...Base }),
  z.object({
    type: z.literal("turn-ended"),
    ...Base,
    reason: z.enum(["completed", "cancelled", "error", "max-steps"]),
    error: z.string().optional(),
  }),
  z.object({
    type: z.literal("tool-started"),
    ...Base,
    toolCallId: z.string().min(1),
    name: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()),
  }),
  z.object({ type: z.literal("tool-output"), ...Base, toolCallId: z.string().min(1), update: ToolUpdate }),
  z.object({
    type: z.literal("tool-finished"),
    ...Base,
    toolCallId: z.string().min(1),
    name: z.string().min(1),
    outcome: z.enum(["done", "failed", "refused", "cancelled"]),
    /** First line of the error, or why it was refused. */
    message: z.string().optional(),
    refusedBy: RefusedBy.optional(),
    details: ToolDetails.optional(),
  }),
  z.object({
    type: z.literal("approval-requested"),
    ...Base,
    toolCallId: z.string().min(1),
    toolName: z.string().min(1),
    kind: z.enum(["read", "edit", "command"]),
    summary: z.string(),
    preview: ApprovalPreview.optional(),
    /** An MCP server's tool: the card offers "always allow" for it or its server. */
    mcp: z.object({ server: z.string(), tool: z.string() }).optional(),
  }),
  z.object({
    type: z.literal("approval-resolved"),
    ...Base,
    toolCallId: z.string().min(1),
    decision: z.enum(["approved", "denied"]),
    by: RefusedBy,
    scope: z.enum(["once", "session", "always"]).optional(),
    reason: z.string().optional(),
  }),
  /** Real usage of the last completed request against the window (ratio = contextTokens / window). */
  z.object({
    type: z.literal("usage"),
    ...Base,
    usage: Usage,
    contextWindow: z.number().int().positive().optional(),
    ratio: z.number().nonnegative().optional(),
    /** The model's window is unknown: `contextWindow` is the stated default (DEFAULT_CONTEXT_WINDOW). */
    windowAssumed: z.literal(true).optional(),
  }),
  z.object({ type: z.literal("compaction-started"), ...Base, reason: z.string() }),
  z.object({
    type: z.literal("compaction-finished"),
    ...Base,
    reason: z.string(),
    /** Messages closed into a segment (0 when nothing could be closed). */
    closed: z.number().int().nonnegative(),
    folded: z.number().int().nonnegative().optional(),
    error: z.string().optional(),
    note: z.string().optional(),
  }),
  /** `seq`: the notice is in the session log too (views derive it from there); without it, it is the host's own. */
  z.object({
    type: z.literal("notice"),
    ...Base,
    level: z.enum(["info", "warning", "error"]),
    message: z.string(),
    seq: z.number().int().positive().optional(),
  }),
]);
export type AgentEvent = z.infer<typeof AgentEvent>;
export type AgentEventType = AgentEvent["type"];
export type AgentEventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;
