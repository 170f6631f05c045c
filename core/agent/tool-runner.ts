import type { ToolCallBlock, ToolResultData } from "../protocol";
import type { Session } from "../session";
import type { ToolRegistry } from "../tools/registry";
import type { ToolContext, ToolOutput } from "../tools/types";
import { autoApproved, type ApprovalPolicy, type ApproveFn } from "./approval";

export interface ToolRunOptions {
  session: Session;
  tools: ToolRegistry;
  policy: ApprovalPolicy;
  /** Asks the user; without it, anything the policy does not allow is denied. */
  approve?: ApproveFn;
  context: ToolContext;
}

type Planned = { call: ToolCallBlock; run: boolean; readOnly: boolean; output?: ToolOutput; notStarted?: boolean };

const text = (t: string, isError = true): ToolOutput => ({ content: [{ type: "text", text: t }], isError });

/**
 * Runs the tool calls of one assistant message: logs each call, decides approval
 * (policy, then the host's `approve`), runs approved calls — consecutive read-only ones
 * in parallel — and appends one `tool/result` per call, in call order, on the Surface.
 */
export async function runToolCalls(calls: readonly ToolCallBlock[], options: ToolRunOptions): Promise<void> {
  const { session, tools, context } = options;
  const planned: Planned[] = [];
  for (const call of calls) {
    session.append("tool/call", { toolCallId: call.id, name: call.name, arguments: call.arguments });
    if (call.invalidArguments) {
      // The model's arguments were not JSON: never run a call on a guess.
      planned.push({ call, run: false, readOnly: true, output: text(`The arguments of ${call.name} were not valid JSON (${call.invalidArguments.error}); nothing ran. Send the call again with valid JSON.`) });
      continue;
    }
    const parsed = tools.parse(call.name, call.arguments);
    if (!parsed.ok) {
      planned.push({ call, run: false, readOnly: true, output: text(parsed.error) });
      continue;
    }
    const tool = parsed.tool;
    let approved = autoApproved(options.policy, tool.kind);
    let by: "policy" | "user" = "policy";
    let reason: string | undefined;
    if (!approved && options.approve && !context.signal.aborted) {
      by = "user";
      const summary = tool.describe ? tool.describe(parsed.args) : `${tool.name} ${JSON.stringify(call.arguments)}`;
      try {
        const decision = await options.approve({ toolCallId: call.id, toolName: tool.name, kind: tool.kind, arguments: call.arguments, summary }, context.signal);
        approved = decision.approved;
        if (!decision.approved) reason = decision.reason;
      } catch (err) {
        approved = false;
        reason = `approval failed: ${err instanceof Error ? err.message : String(err)}`;
      }
    } else if (!approved) {
      reason = `the approval policy '${options.policy}' does not allow ${tool.kind} tools and no one can be asked`;
    }
    session.append("tool/approval", { toolCallId: call.id, decision: approved ? "approved" : "denied", by, ...(reason ? { reason } : {}) });
    planned.push(
      approved
        ? { call, run: true, readOnly: tool.readOnly }
        : { call, run: false, readOnly: true, output: text(`The user did not approve this ${tool.kind} (${tool.name}).${reason ? ` Reason: ${reason}` : ""} Do not retry it unchanged.`) },
    );
  }

  // Consecutive read-only calls form one parallel group; anything else runs alone.
  for (let i = 0; i < planned.length; ) {
    let j = i + 1;
    if (planned[i]!.readOnly) while (j < planned.length && planned[j]!.readOnly) j++;
    await Promise.all(
      planned.slice(i, j).map(async (p) => {
        if (!p.run) return;
        if (context.signal.aborted) {
          p.output = text(`${p.call.name} was not started: the turn was cancelled`);
          p.notStarted = true;
        } else p.output = await tools.run(p.call.name, p.call.arguments, context);
      }),
    );
    i = j;
  }

  for (const p of planned) {
    const output = p.output!;
    const data: ToolResultData = { toolCallId: p.call.id, toolName: p.call.name, content: output.content };
    if (output.isError) data.isError = true;
    if (p.notStarted) data.synthetic = "cancelled";
    session.append("tool/result", data, { surface: "append" });
  }
}
