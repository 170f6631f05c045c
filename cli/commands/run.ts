import { parseArgs } from "node:util";
import { platform } from "node:os";
import { Agent, ApprovalPolicy, type TurnOutcome } from "../../core/agent";
import { LlmRuntime } from "../../core/llm";
import { ToolRegistry } from "../../core/tools/registry";
import { createNodeTools } from "../../core/tools/node";
import type { StreamChunk } from "../../core/protocol";
import { CliError, type Output } from "../output";
import { resolveProvider } from "../provider-config";
import { ttyApproval } from "../tty-approval";
import { openStore, sessionFor, workspaceNotes, workspaceRoot } from "../workspace";

export const RUN_HELP = `Usage: downcity run [options] "prompt"

Runs the agent on a folder and streams its answer.

Options:
  --cwd DIR               workspace folder (default: current folder); tools stay inside it
  --agent ID              agent id (storage partition, default: default)
  --session ID            continue an existing session
  --approve LEVEL         what runs without asking: none | reads | edits | all (default: reads)
  --max-steps N           model calls per turn (default: 50)
  --json                  one JSON object per session event on stdout
  --protocol P            openai-chat | openai-responses | anthropic-messages (else DOWNCITY_PROTOCOL)
  --base-url URL          provider endpoint (else DOWNCITY_BASE_URL)
  --model ID              model id (else DOWNCITY_MODEL)
  --context-window N      tokens (else DOWNCITY_CONTEXT_WINDOW, else the built-in table)
  -h, --help              this help

Exit codes: 0 answered, 1 failed, 3 stopped at --max-steps, 130 cancelled (Ctrl-C).`;

const EXIT: Record<TurnOutcome["reason"], number> = { completed: 0, error: 1, "max-steps": 3, cancelled: 130 };

export async function runCommand(argv: string[], output: Output): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      cwd: { type: "string" },
      agent: { type: "string", default: "default" },
      session: { type: "string" },
      approve: { type: "string", default: "reads" },
      "max-steps": { type: "string", default: "50" },
      json: { type: "boolean", default: false },
      protocol: { type: "string" },
      "base-url": { type: "string" },
      model: { type: "string" },
      "context-window": { type: "string" },
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

  const sessions = openStore(root);
  let agent: Agent | undefined;
  const onSigint = () => {
    if (agent?.running) {
      output.err(output.dim("\n(cancelling… press Ctrl-C again to quit at once)\n"));
      agent.cancel();
      process.once("SIGINT", () => process.exit(130));
    } else process.exit(130);
  };
  process.once("SIGINT", onSigint);
  try {
    const { session, repairs } = await sessionFor(sessions, values.agent, values.session);
    for (const repair of repairs) output.err(output.dim(`repaired: ${repair}\n`));
    if (session.readOnly) throw new CliError(`session ${session.id} is read-only: ${session.readOnly}`, 1);
    if (values.json) session.on("event", (event) => output.json(event));
    else output.err(output.dim(`session ${session.id}\n`));

    const approve = ttyApproval(output);
    agent = new Agent({
      session,
      storage: sessions,
      llm: new LlmRuntime({ profiles: [provider.profile] }),
      tools: new ToolRegistry(createNodeTools()),
      model: { provider: provider.profile.id, model: provider.model },
      workspace: { root, platform: platform(), notes: await workspaceNotes(root) },
      policy: policy.data,
      ...(approve ? { approve } : {}),
      maxSteps,
      ...(provider.contextWindow ? { contextWindow: provider.contextWindow } : {}),
      onNotice: (message) => output.err(output.yellow(`! ${message}\n`)),
      ...(values.json ? {} : { onChunk: printer(output) }),
    });
    agent.followUp(prompt);
    const [outcome] = await agent.run();
    if (!outcome) return 1;
    if (!values.json) {
      output.out("\n");
      if (outcome.error) output.err(output.red(`error: ${outcome.error.message}\n`));
      if (outcome.reason === "max-steps") output.err(output.yellow(`stopped after ${maxSteps} steps (--max-steps)\n`));
      if (outcome.reason === "cancelled") output.err(output.yellow("cancelled\n"));
    }
    return EXIT[outcome.reason];
  } finally {
    process.removeListener("SIGINT", onSigint);
    await sessions.close();
  }
}

/** Streams text to stdout, reasoning dimmed to stderr, tool calls as one line each. */
function printer(output: Output): (chunk: StreamChunk) => void {
  const tools = new Map<number, string>();
  return (chunk) => {
    switch (chunk.type) {
      case "text-delta":
        output.out(chunk.text);
        break;
      case "reasoning-delta":
        output.err(output.dim(chunk.text));
        break;
      case "block-start":
        if (chunk.block.type === "tool-call") tools.set(chunk.index, chunk.block.name);
        break;
      case "block-end": {
        const name = tools.get(chunk.index);
        if (name) output.err(output.dim(`\n→ ${name}\n`));
        break;
      }
    }
  };
}
