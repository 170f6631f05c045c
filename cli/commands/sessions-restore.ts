import type { RestoreFilePlan, RestoreOutcome, RestorePreview, RuntimeFactory } from "../../core/runtime";
import { CliError, type Output } from "../output";
import type { SessionsValues } from "./sessions";

/**
 * `sessions restore ID --to SEQ`: the files as they were right after SEQ (and, unless
 * --files-only, the conversation continued from SEQ in a fork); `--undo` undoes the
 * session's latest restore. A preview is always computed first; --dry-run stops there.
 * Conflicts (files changed since the agent last did) keep the user's version unless
 * --overwrite.
 */
export async function restoreCommand(
  createWorkspaceRuntime: RuntimeFactory,
  root: string,
  ref: { agentId: string; sessionId: string },
  values: SessionsValues,
  output: Output,
): Promise<number> {
  if (!values.undo && values.to === undefined) throw new CliError("sessions restore needs --to SEQ (or --undo)");
  const to = values.to === undefined ? undefined : Number(values.to);
  if (to !== undefined && (!Number.isInteger(to) || to < 0))
    throw new CliError("--to must be a whole number (a seq; 0 = before the first event)");
  const runtime = createWorkspaceRuntime({
    root,
    agents: [{ id: ref.agentId, name: ref.agentId }],
    providers: () => [],
    model: () => undefined,
    approval: () => ({ reads: "ask", edits: "ask", commands: "ask" }),
    tools: () => [],
  });
  try {
    const { session, report } = await runtime.open(ref);
    for (const action of report.actions) output.err(output.dim(`repaired: ${action}\n`));
    if (session.readOnly && !values["dry-run"])
      throw new CliError(`session ${ref.sessionId} is read-only: ${session.readOnly}`, 1);
    let plan: RestorePreview;
    let undoOf: number | undefined;
    if (values.undo) ({ plan, undoOf } = await runtime.previewUndoRestore(ref));
    else plan = await runtime.previewRestore(ref, to!);
    const scope = values["files-only"] || values.undo ? "files" : "files+conversation";
    const choices = Object.fromEntries(
      plan.files
        .filter((f) => f.status === "conflict")
        .map((f) => [f.path, values.overwrite ? ("checkpoint" as const) : ("mine" as const)]),
    );
    if (values["dry-run"]) {
      if (values.json) output.json({ toSeq: plan.toSeq, scope, files: plan.files, unchanged: plan.unchanged });
      else printPlan(plan, values.overwrite === true, output);
      return 0;
    }
    const outcome = await runtime.applyRestore(ref, plan, { scope, choices, ...(undoOf ? { undoOf } : {}) });
    if (values.json) output.json({ toSeq: plan.toSeq, scope, files: plan.files, ...outcome });
    else printOutcome(ref.sessionId, plan, outcome, output);
    return outcome.notRestorable.length > 0 ? 1 : 0;
  } finally {
    await runtime.close();
  }
}

const line = (f: RestoreFilePlan, overwrite: boolean): string => {
  if (f.status === "restore") return `restore        ${f.path}${f.target.kind === "absent" ? " (delete)" : ""}`;
  if (f.status === "conflict")
    return `conflict       ${f.path}: ${f.reason} (${overwrite ? "take checkpoint" : "keep yours; --overwrite takes the checkpoint"})`;
  return `not restorable ${f.path}: ${f.reason}`;
};

function printPlan(plan: RestorePreview, overwrite: boolean, output: Output): void {
  if (plan.files.length === 0) output.out(`nothing to restore: every file is as it was after seq ${plan.toSeq}\n`);
  for (const f of plan.files) output.out(`${line(f, overwrite)}\n`);
}

function printOutcome(sessionId: string, plan: RestorePreview, outcome: RestoreOutcome, output: Output): void {
  output.out(
    `restored ${outcome.restored.length} file${outcome.restored.length === 1 ? "" : "s"} to seq ${plan.toSeq}${outcome.kept.length ? `, kept yours: ${outcome.kept.join(", ")}` : ""}\n`,
  );
  for (const f of plan.files.filter((f) => f.status === "not-restorable")) output.out(`${line(f, false)}\n`);
  if (outcome.fork) output.out(`the conversation continues in ${outcome.fork.sessionId}\n`);
  output.out(output.dim(`undo: downcity sessions restore ${sessionId} --undo\n`));
}
