import type { CheckpointRecorder, PendingCheckpoint } from "../checkpoints/recorder";
import type { ApprovalPreview, ToolCallBlock, ToolCheckpoint, ToolResultData } from "../protocol";
import { denyReason } from "../protocol/deny-reason";
import type { Session } from "../session";
import { SandboxError, ToolError } from "../tools/errors";
import type { ToolRegistry } from "../tools/registry";
import type { Tool, ToolContext, ToolKind, ToolOutput } from "../tools/types";
import {
  gateFor,
  refusalText,
  commandLineOf,
  type ApprovalSettings,
  type ApproveFn,
  type SessionApprovals,
} from "./approval";
import { firstLine, type EmitAgentEvent } from "./events";

export interface ToolRunOptions {
  session: Session;
  tools: ToolRegistry;
  approval: ApprovalSettings;
  /** Asks the user; without it, anything the settings do not allow is refused by policy. */
  approve?: ApproveFn;
  /** Why nothing may run (Restricted Mode): every edit and command is refused. */
  restricted?: string | undefined;
  forbiddenKinds?: readonly ToolKind[];
  agentName?: string;
  remembered?: SessionApprovals;
  context: ToolContext;
  emit?: EmitAgentEvent;
  /** Records what edits and commands change, onto their results (restore, issue 24). */
  checkpoints?: CheckpointRecorder;
}

type Outcome = "done" | "failed" | "refused" | "cancelled";
type Planned = {
  call: ToolCallBlock;
  run: boolean;
  readOnly: boolean;
  output?: ToolOutput;
  outcome?: Outcome;
  refusedBy?: "policy" | "user" | "restricted-mode";
  notStarted?: boolean;
  /** What the approval prompt showed (a refused edit's diff is logged with its result). */
  preview?: ApprovalPreview;
  kind?: ToolKind;
  checkpoint?: ToolCheckpoint;
};

const errorOutput = (t: string): ToolOutput => ({ content: [{ type: "text", text: t }], isError: true });
const outputText = (o: ToolOutput): string => o.content.map((p) => (p.type === "text" ? p.text : "")).join("\n");

/**
 * Runs the tool calls of one assistant message: logs each call, decides approval
 * (Restricted Mode, the agent's kinds, the settings and allow-list, the session's
 * "allow for this session" decisions, then the host's `approve` with a preview), runs
 * approved calls — consecutive read-only ones in parallel — and appends one
 * `tool/result` per call, in call order, on the Surface.
 */
export async function runToolCalls(calls: readonly ToolCallBlock[], options: ToolRunOptions): Promise<void> {
  const { session, tools, context } = options;
  const emit = options.emit ?? (() => {});
  const planned: Planned[] = [];
  for (const call of calls) {
    session.append("tool/call", { toolCallId: call.id, name: call.name, arguments: call.arguments });
    emit({ type: "tool-started", toolCallId: call.id, name: call.name, arguments: call.arguments });
    planned.push(await plan(call, options, emit));
  }

  // Consecutive read-only calls form one parallel group; anything else runs alone.
  for (let i = 0; i < planned.length;) {
    let j = i + 1;
    if (planned[i]!.readOnly) while (j < planned.length && planned[j]!.readOnly) j++;
    await Promise.all(
      planned.slice(i, j).map(async (p) => {
        if (!p.run) return;
        if (context.signal.aborted) {
          p.output = errorOutput(`${p.call.name} was not started: the turn was cancelled`);
          p.notStarted = true;
          p.outcome = "cancelled";
          return;
        }
        const ctx: ToolContext = {
          ...context,
          toolCallId: p.call.id,
          sessionId: session.id,
          agentId: session.agentId,
          onUpdate: (update) => emit({ type: "tool-output", toolCallId: p.call.id, update }),
        };
        const recording =
          p.kind && !p.readOnly ? await startCheckpoint(options.checkpoints, p.kind, p.call.arguments) : undefined;
        p.output = await tools.run(p.call.name, p.call.arguments, ctx);
        // Recorded whatever the outcome: a failed command may still have changed files.
        if (recording) p.checkpoint = await finishCheckpoint(recording);
        p.outcome = !p.output.isError ? "done" : context.signal.aborted ? "cancelled" : "failed";
      }),
    );
    i = j;
  }

  for (const p of planned) {
    const output = p.output!;
    const data: ToolResultData = { toolCallId: p.call.id, toolName: p.call.name, content: output.content };
    if (output.isError) data.isError = true;
    if (p.notStarted) data.synthetic = "cancelled";
    const outcome = p.outcome ?? "failed";
    // Logged, not only emitted: a reopened chat shows the same outcome, diff and exit facts.
    data.outcome = outcome;
    const details = output.details ?? p.preview;
    if (details) data.details = details;
    if (p.checkpoint && (p.checkpoint.files.length > 0 || p.checkpoint.note)) data.checkpoint = p.checkpoint;
    session.append("tool/result", data, { surface: "append" });
    emit({
      type: "tool-finished",
      toolCallId: p.call.id,
      name: p.call.name,
      outcome,
      ...(outcome !== "done" ? { message: firstLine(outputText(output)) } : {}),
      ...(p.refusedBy ? { refusedBy: p.refusedBy } : {}),
      ...(output.details ? { details: output.details } : {}),
    });
  }
}

/** Validates and approves one call; a refused or invalid call gets its result here. */
async function plan(call: ToolCallBlock, options: ToolRunOptions, emit: EmitAgentEvent): Promise<Planned> {
  const { session, tools, context } = options;
  if (call.invalidArguments) {
    // The model's arguments were not JSON: never run a call on a guess.
    return {
      call,
      run: false,
      readOnly: true,
      outcome: "failed",
      output: errorOutput(
        `The arguments of ${call.name} were not valid JSON (${call.invalidArguments.error}); nothing ran. Send the call again with valid JSON.`,
      ),
    };
  }
  const parsed = tools.parse(call.name, call.arguments);
  if (!parsed.ok) return { call, run: false, readOnly: true, outcome: "failed", output: errorOutput(parsed.error) };
  const tool = parsed.tool;
  const gate = gateFor({
    toolName: tool.name,
    kind: tool.kind,
    arguments: call.arguments,
    settings: options.approval,
    restricted: options.restricted,
    ...(options.forbiddenKinds ? { forbiddenKinds: options.forbiddenKinds } : {}),
    ...(options.agentName ? { agentName: options.agentName } : {}),
    ...(options.remembered ? { remembered: options.remembered } : {}),
    ...(tool.mcp ? { mcp: tool.mcp } : {}),
  });

  const refuse = (
    by: "policy" | "user" | "restricted-mode",
    reason: string | undefined,
    shown?: ApprovalPreview,
  ): Planned => {
    session.append("tool/approval", { toolCallId: call.id, decision: "denied", by, ...(reason ? { reason } : {}) });
    emit({ type: "approval-resolved", toolCallId: call.id, decision: "denied", by, ...(reason ? { reason } : {}) });
    // An approval Stop resolved is cancelled, not refused: the card says so.
    const outcome = context.signal.aborted ? "cancelled" : "refused";
    return {
      call,
      run: false,
      readOnly: true,
      outcome,
      refusedBy: by,
      output: errorOutput(refusalText(tool.name, tool.kind, by, reason)),
      ...(shown ? { preview: shown } : {}),
    };
  };
  const approve = (by: "policy" | "user", scope?: "once" | "session" | "always"): Planned => {
    session.append("tool/approval", { toolCallId: call.id, decision: "approved", by, ...(scope ? { scope } : {}) });
    if (by === "user")
      emit({ type: "approval-resolved", toolCallId: call.id, decision: "approved", by, ...(scope ? { scope } : {}) });
    return { call, run: true, readOnly: tool.readOnly, kind: tool.kind };
  };

  if (gate.kind === "refuse") return refuse(gate.by, gate.reason);
  if (gate.kind === "auto") return approve(gate.by, gate.scope);
  if (!options.approve || context.signal.aborted) {
    return refuse(
      "policy",
      context.signal.aborted ? "the turn was cancelled" : `${tool.kind} tools need approval and no one can be asked`,
    );
  }

  const summary = tool.describe ? tool.describe(parsed.args) : `${tool.name} ${JSON.stringify(call.arguments)}`;
  const preview = await previewOf(tool, parsed.args, {
    ...context,
    toolCallId: call.id,
    sessionId: session.id,
    agentId: session.agentId,
  });
  if ("failure" in preview) {
    // The call cannot succeed (an edit with no match): that is its result, nobody is asked.
    return { call, run: false, readOnly: true, outcome: "failed", output: errorOutput(preview.failure) };
  }
  emit({
    type: "approval-requested",
    toolCallId: call.id,
    toolName: tool.name,
    kind: tool.kind,
    summary,
    ...(preview.value ? { preview: preview.value } : {}),
    ...(tool.mcp?.allowAlways ? { mcp: { server: tool.mcp.server, tool: tool.mcp.tool } } : {}),
  });
  // While the user decides, a command's recording pays its one full walk (not once approved).
  if (tool.kind && !tool.readOnly) void options.checkpoints?.warm(tool.kind);
  try {
    const decision = await options.approve(
      {
        toolCallId: call.id,
        toolName: tool.name,
        kind: tool.kind,
        arguments: call.arguments,
        summary,
        ...(preview.value ? { preview: preview.value } : {}),
      },
      context.signal,
    );
    // The user's own words (or a surface's): cleaned once here, so the log, the model and the card say the same.
    if (!decision.approved) return refuse("user", denyReason(decision.reason), preview.value);
    let scope = decision.scope ?? "once";
    if (scope === "always") {
      // Only an MCP tool can be allowed always; anywhere else it counts for this session.
      // A host that cannot persist it still honours it for this session.
      if (!tool.mcp?.allowAlways) scope = "session";
      else await tool.mcp.allowAlways(decision.always ?? "tool").catch(() => (scope = "session"));
    }
    if (scope === "session")
      options.remembered?.remember(tool.name, tool.mcp ? undefined : commandLineOf(tool.kind, call.arguments));
    return approve("user", scope);
  } catch (err) {
    return refuse(
      "user",
      context.signal.aborted
        ? "the turn was cancelled"
        : `approval failed: ${err instanceof Error ? err.message : String(err)}`,
      preview.value,
    );
  }
}

/** Recording never stops a call: a recorder that fails says so on the result instead. */
async function startCheckpoint(
  recorder: CheckpointRecorder | undefined,
  kind: ToolKind,
  args: unknown,
): Promise<PendingCheckpoint | ToolCheckpoint | undefined> {
  if (!recorder) return undefined;
  try {
    return await recorder.before(kind, args);
  } catch (err) {
    return { files: [], note: `not recorded: ${err instanceof Error ? err.message : String(err)}` };
  }
}

async function finishCheckpoint(recording: PendingCheckpoint | ToolCheckpoint): Promise<ToolCheckpoint> {
  const pending = recording as PendingCheckpoint;
  if (typeof pending.finish !== "function") return recording as ToolCheckpoint;
  try {
    return await pending.finish();
  } catch (err) {
    return { files: [], note: `not recorded: ${err instanceof Error ? err.message : String(err)}` };
  }
}

async function previewOf(
  tool: Tool,
  args: unknown,
  ctx: ToolContext,
): Promise<{ value: Awaited<ReturnType<NonNullable<Tool["preview"]>>> } | { failure: string }> {
  if (!tool.preview) return { value: undefined };
  try {
    return { value: await tool.preview(args, ctx) };
  } catch (err) {
    if (err instanceof ToolError) return { failure: err.message };
    if (err instanceof SandboxError) return { failure: `sandbox: ${err.message}` };
    // A preview the host could not build does not block the question.
    return { value: undefined };
  }
}
