import { parseArgs } from "node:util";
import type { RunResult } from "../../core/runtime/types";
import {
  ApprovalPolicy,
  createWorkspaceRuntime,
  settingsForPolicy,
  singleProvider,
  type WorkspaceRuntimeApi,
} from "../../core/runtime";
import { createNodeTools } from "../../core/tools/node";
import { CliError, type Output } from "../output";
import { RUN_HELP } from "../help";
import { createPrinter } from "../printer";
import { resolveProvider } from "../provider-config";
import { ttyApproval } from "../tty-approval";
import { cliMcp } from "../mcp";
import { rulesFromEnv, workspaceNotes } from "../workspace";
import { workspaceRoot } from "../workspace-root";

const EXIT: Record<RunResult["reason"], number> = { completed: 0, error: 1, "max-steps": 3, cancelled: 130 };

export async function runCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: "string" },
      agent: { type: "string", default: "code" },
      session: { type: "string" },
      approve: { type: "string", default: "reads" },
      "max-steps": { type: "string", default: "50" },
      json: { type: "boolean", default: false },
      protocol: { type: "string" },
      "base-url": { type: "string" },
      model: { type: "string" },
      "context-window": { type: "string" },
      "mcp-trust": { type: "boolean", default: false },
      "mcp-allow": { type: "string", multiple: true, default: [] },
      "no-mcp": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    output.out(`${RUN_HELP}\n`);
    return 0;
  }
  const prompt = positionals.join(" ").trim();
  if (!prompt) throw new CliError(`No prompt given.\n\n${RUN_HELP}`);
  const policy = ApprovalPolicy.safeParse(values.approve);
  if (!policy.success) throw new CliError(`--approve must be one of none, reads, edits, all (not '${values.approve}')`);
  const maxSteps = Number(values["max-steps"]);
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new CliError(`--max-steps must be a positive whole number`);
  const provider = resolveProvider(values);
  const root = await workspaceRoot(values.cwd);

  const nodeTools = createNodeTools();
  const mcp = await cliMcp(root, output, {
    trust: values["mcp-trust"],
    allow: values["mcp-allow"],
    off: values["no-mcp"],
  });
  const approve = ttyApproval(output);
  const runtime = createWorkspaceRuntime({
    root,
    ...singleProvider(provider),
    approval: () => settingsForPolicy(policy.data),
    ...(approve ? { approve } : {}),
    tools: () => nodeTools,
    ...(mcp ? { mcpTools: () => mcp.tools() } : {}),
    workspaceNotes: () => workspaceNotes(root),
    maxSteps,
    rules: rulesFromEnv(process.env),
    providerSetting: (_id, about) =>
      about === "window" ? "DOWNCITY_CONTEXT_WINDOW (or --context-window)" : "DOWNCITY_BASE_URL (or --base-url)",
  });
  let ref: { agentId: string; sessionId: string } | undefined;
  const onSigint = () => {
    if (ref && runtime.isRunning(ref)) {
      output.err(output.dim("\n(cancelling… press Ctrl-C again to quit at once)\n"));
      runtime.cancel(ref);
      process.once("SIGINT", () => process.exit(130));
    } else process.exit(130);
  };
  process.once("SIGINT", onSigint);
  try {
    const session =
      values.session === undefined
        ? runtime.create(values.agent)
        : await openSession(runtime, values.agent, values.session, output);
    ref = { agentId: session.agentId, sessionId: session.id };
    if (session.readOnly) throw new CliError(`session ${session.id} is read-only: ${session.readOnly}`, 1);
    if (values.json) runtime.onEvent((event) => event.type === "session-event" && output.json(event.event));
    else {
      output.err(output.dim(`session ${session.id}\n`));
      runtime.onEvent(createPrinter(output));
    }
    const [outcome] = await runtime.prompt(ref, prompt);
    if (!outcome) return 1;
    if (!values.json) {
      output.out("\n");
      if (outcome.error) output.err(output.red(`error: ${outcome.error}\n`));
      if (outcome.reason === "max-steps") output.err(output.yellow(`stopped after ${maxSteps} steps (--max-steps)\n`));
      if (outcome.reason === "cancelled") output.err(output.yellow("cancelled\n"));
    }
    return EXIT[outcome.reason];
  } finally {
    process.removeListener("SIGINT", onSigint);
    await runtime.close();
    await mcp?.close();
  }
}

async function openSession(runtime: WorkspaceRuntimeApi, agentId: string, sessionId: string, output: Output) {
  try {
    const { session, report } = await runtime.open({ agentId, sessionId });
    for (const repair of report.actions) output.err(output.dim(`repaired: ${repair}\n`));
    return session;
  } catch (err) {
    throw new CliError(`cannot open session ${sessionId}: ${(err as Error).message}`, 1);
  }
}
