import type { z } from "zod";
import type { ApprovalPreview, ToolDetails, ToolResultPart, ToolUpdate } from "../protocol";

/** What approval policies (none | reads | edits | all) are decided on. */
export type ToolKind = "read" | "edit" | "command";

/** Everything a tool may rely on from its host. */
export interface ToolContext {
  /** Realpath of the workspace root: the sandbox every path is resolved into. */
  root: string;
  signal: AbortSignal;
  /** Base environment for commands (scrubbed before use); defaults to `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The call being run (hosts key live views and proposals by it). */
  toolCallId?: string;
  /** The session the call belongs to. */
  sessionId?: string;
  /** The session's agent: two agents may hold the same session id, so hosts key per-session state by both. */
  agentId?: string;
  /** Streams output while the tool runs (a command's output, a long search's progress). */
  onUpdate?: (update: ToolUpdate) => void;
}

export interface ToolOutput {
  content: ToolResultPart[];
  isError?: boolean;
  /** Some of the output was cut to fit the result cap. */
  truncated?: boolean;
  /** Structured facts for hosts (an edit's diff, a command's exit code); never sent to the model. */
  details?: ToolDetails;
}

/** Name, model-facing description, parameters and policy facts of a tool, without an implementation. */
export interface ToolDefinition<P = any> {
  name: string;
  description: string;
  parameters: z.ZodType<P>;
  kind: ToolKind;
  /** Read-only tools may run in parallel. */
  readOnly: boolean;
  /** Result cap in characters (default `DEFAULT_MAX_RESULT_CHARS`); cut head + tail with a note. */
  maxResultChars?: number;
  /** Human summary for approval prompts, e.g. "run `npm test` in ./pkg". */
  describe?(args: P): string;
  /** The parameters as the JSON Schema the model sees, when they come as one (an MCP server's tool); else derived from `parameters`. */
  inputJsonSchema?: Record<string, unknown>;
  /** Set for an MCP server's tool: approved like a command, but its arguments are never read as a command line. */
  mcp?: McpToolFacts;
}

export interface McpToolFacts {
  server: string;
  /** The tool's name on its server. */
  tool: string;
  /** The user allowed this tool (or its whole server) always, for this folder. */
  alwaysAllowed?: () => boolean;
  /** Remembers "always allow" for this tool or its server; absent when the host keeps no such state. */
  allowAlways?: (what: "tool" | "server") => Promise<void>;
}

/**
 * A tool. Node implementations live in `node/`; the VS Code host registers editor-backed
 * tools with the same definitions (names, parameters) and the same sandbox rules.
 */
export interface Tool<P = any> extends ToolDefinition<P> {
  execute(args: P, ctx: ToolContext): Promise<ToolOutput>;
  /**
   * What the approval prompt shows before the call runs (the diff an edit would make, the
   * command and its folder). A failure here (no match for an edit) is the call's result.
   */
  preview?(args: P, ctx: ToolContext): Promise<ApprovalPreview | undefined>;
}

export const DEFAULT_MAX_RESULT_CHARS = 32_000;

/** A one-text-part output. */
export function textOutput(text: string, extra: { isError?: boolean; truncated?: boolean } = {}): ToolOutput {
  const out: ToolOutput = { content: [{ type: "text", text }] };
  if (extra.isError) out.isError = true;
  if (extra.truncated) out.truncated = true;
  return out;
}
