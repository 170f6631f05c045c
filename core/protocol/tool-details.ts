import { z } from "zod";

/**
 * Structured facts a tool output carries next to its model-facing content, for hosts
 * (the chat's tool card, the CLI's outcome line). Never sent to the model.
 */
export const EditDetails = z.object({
  kind: z.literal("edit"),
  /** Workspace-relative, `/`-separated. */
  path: z.string().min(1),
  /** Unified diff of what was (or would be) applied. */
  diff: z.string(),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  newFile: z.boolean().optional(),
});
export const CommandDetails = z.object({
  kind: z.literal("command"),
  command: z.string(),
  /** Workspace-relative folder the command ran in ("." for the root). */
  cwd: z.string(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  timedOut: z.boolean().optional(),
});
export const ToolDetails = z.discriminatedUnion("kind", [EditDetails, CommandDetails]);
export type EditDetails = z.infer<typeof EditDetails>;
export type CommandDetails = z.infer<typeof CommandDetails>;
export type ToolDetails = z.infer<typeof ToolDetails>;

/** What an approval prompt shows before a call runs: the diff an edit would make, the command and its folder. */
export const ApprovalPreview = z.discriminatedUnion("kind", [
  EditDetails,
  z.object({ kind: z.literal("command"), command: z.string(), cwd: z.string() }),
]);
export type ApprovalPreview = z.infer<typeof ApprovalPreview>;

/** A streamed piece of a running tool's output (a command's stdout, a search's progress). */
export const ToolUpdate = z.object({
  /** Text to append to what the live view shows. */
  text: z.string(),
  stream: z.enum(["stdout", "stderr", "progress"]).optional(),
});
export type ToolUpdate = z.infer<typeof ToolUpdate>;

/** Who or what refused a call. */
export const RefusedBy = z.enum(["policy", "user", "restricted-mode"]);
export type RefusedBy = z.infer<typeof RefusedBy>;

/**
 * An approval decision. `scope: "session"` allows the same tool (for commands: the same
 * command line) for the rest of the session without asking again. `scope: "always"` (MCP
 * tools only) allows the tool, or with `always: "server"` every tool of its server, in
 * this folder from now on, persisted by the host like the MCP Servers picker's.
 */
export const ApprovalScope = z.enum(["once", "session", "always"]);
export const ApprovalDecision = z.discriminatedUnion("approved", [
  z.object({
    approved: z.literal(true),
    scope: ApprovalScope.optional(),
    always: z.enum(["tool", "server"]).optional(),
  }),
  z.object({ approved: z.literal(false), reason: z.string().max(2000).optional() }),
]);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;
