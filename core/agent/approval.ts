import { z } from "zod";
import type { ApprovalDecision, ApprovalPreview, RefusedBy } from "../protocol";
import type { McpToolFacts, ToolKind } from "../tools/types";
import { commandAllowed, normalizeCommandLine } from "./command-allow-list";

export type { ApprovalDecision } from "../protocol";

/** Per-kind approval: "auto" runs without asking, "ask" asks the host (refused when no one can be asked). */
export interface ApprovalSettings {
  reads: "ask" | "auto";
  edits: "ask" | "auto";
  commands: "ask" | "auto";
  /** Exact commands or prefixes that run without asking (never when chained or redirected). */
  allowedCommands?: readonly string[];
}

/** The CLI's levels of what runs without asking: none | reads | edits (reads + edits) | all. */
export const ApprovalPolicy = z.enum(["none", "reads", "edits", "all"]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicy>;

export function settingsForPolicy(policy: ApprovalPolicy, allowedCommands?: readonly string[]): ApprovalSettings {
  const auto = (on: boolean) => (on ? "auto" : "ask") as "auto" | "ask";
  return {
    reads: auto(policy !== "none"),
    edits: auto(policy === "edits" || policy === "all"),
    commands: auto(policy === "all"),
    ...(allowedCommands ? { allowedCommands } : {}),
  };
}

const SETTING: Record<ToolKind, "reads" | "edits" | "commands"> = { read: "reads", edit: "edits", command: "commands" };

export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  kind: ToolKind;
  arguments: Record<string, unknown>;
  /** Human summary, e.g. "run `npm test`". */
  summary: string;
  /** The diff an edit would make, the command and its folder. */
  preview?: ApprovalPreview;
}

/** Host-provided: asks the user (a VS Code prompt, a TTY question) and says what they chose. */
export type ApproveFn = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;

/** The command line of a call, when it is a command (what "allow for this session" remembers). */
export function commandLineOf(kind: ToolKind, args: Record<string, unknown>): string | undefined {
  return kind === "command" && typeof args.command === "string" ? args.command : undefined;
}

/**
 * "Allow for this session" decisions of one session: a tool by name, a command by its
 * (whitespace-normalised) command line.
 */
export class SessionApprovals {
  private readonly allowed = new Set<string>();

  private key(toolName: string, command: string | undefined): string {
    return command === undefined ? `tool:${toolName}` : `command:${normalizeCommandLine(command)}`;
  }
  remember(toolName: string, command: string | undefined): void {
    this.allowed.add(this.key(toolName, command));
  }
  has(toolName: string, command: string | undefined): boolean {
    return this.allowed.has(this.key(toolName, command));
  }
}

/** What happens to a call before anyone is asked. */
export type Gate =
  | { kind: "auto"; by: "policy" | "user"; scope?: "session" | "always" }
  | { kind: "ask" }
  | { kind: "refuse"; by: RefusedBy; reason: string };

export interface GateInput {
  toolName: string;
  kind: ToolKind;
  arguments: Record<string, unknown>;
  settings: ApprovalSettings;
  /** Why nothing may run (Restricted Mode). */
  restricted?: string | undefined;
  /** Kinds the agent may never run (the read-only "ask" agent). */
  forbiddenKinds?: readonly ToolKind[];
  agentName?: string;
  remembered?: SessionApprovals;
  /** The call is an MCP server's tool (see `Tool.mcp`). */
  mcp?: McpToolFacts;
}

/** Restricted Mode, then the agent's forbidden kinds, then the settings, allow-list and session decisions. */
export function gateFor(input: GateInput): Gate {
  if (input.restricted !== undefined && input.kind !== "read")
    return { kind: "refuse", by: "restricted-mode", reason: input.restricted };
  if (input.forbiddenKinds?.includes(input.kind)) {
    return {
      kind: "refuse",
      by: "policy",
      reason: `the ${input.agentName ?? "current"} agent does not run ${input.kind} tools`,
    };
  }
  if (input.settings[SETTING[input.kind]] === "auto") return { kind: "auto", by: "policy" };
  // The user's "always allow" (the approval card or the MCP Servers picker), not a setting.
  if (input.mcp?.alwaysAllowed?.()) return { kind: "auto", by: "user", scope: "always" };
  // An MCP tool's `command` argument is the server's business, never a shell line the allow-list may match.
  const command = input.mcp ? undefined : commandLineOf(input.kind, input.arguments);
  if (command !== undefined && commandAllowed(command, input.settings.allowedCommands ?? []))
    return { kind: "auto", by: "policy" };
  if (input.remembered?.has(input.toolName, command)) return { kind: "auto", by: "user", scope: "session" };
  return { kind: "ask" };
}

const KIND_NOUN: Record<ToolKind, string> = { read: "read", edit: "edit", command: "command" };

/** The result text the model gets for a refused call: one correct sentence or two. */
export function refusalText(toolName: string, kind: ToolKind, by: RefusedBy, reason?: string): string {
  const what = `this ${KIND_NOUN[kind]} (${toolName})`;
  const because = reason ? `: ${reason.replace(/[.\s]+$/, "")}` : "";
  switch (by) {
    case "restricted-mode":
      return `Nothing ran: ${what} was refused because the workspace is in Restricted Mode${because}. Do not retry it.`;
    case "user":
      return `Nothing ran: the user denied ${what}${because}. Do not retry it unchanged.`;
    case "policy":
      return `Nothing ran: ${what} was refused by the approval policy${because}. Do not retry it unchanged.`;
  }
}
