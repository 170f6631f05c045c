import { z } from "zod";
import type { ToolKind } from "../tools/types";

/** Which tool kinds run without asking: none | reads | edits (reads + edits) | all. */
export const ApprovalPolicy = z.enum(["none", "reads", "edits", "all"]);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicy>;

const AUTO: Record<ApprovalPolicy, readonly ToolKind[]> = {
  none: [],
  reads: ["read"],
  edits: ["read", "edit"],
  all: ["read", "edit", "command"],
};

export function autoApproved(policy: ApprovalPolicy, kind: ToolKind): boolean {
  return AUTO[policy].includes(kind);
}

export interface ApprovalRequest {
  toolCallId: string;
  toolName: string;
  kind: ToolKind;
  arguments: Record<string, unknown>;
  /** Human summary, e.g. "run `npm test`". */
  summary: string;
}

export type ApprovalDecision = { approved: true } | { approved: false; reason?: string };

/** Host-provided: asks the user (a VS Code prompt, a TTY question) and says what they chose. */
export type ApproveFn = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision>;
