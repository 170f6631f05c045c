import type { Sessions } from "../../core/storage";
import { eventMarkdown, renderTranscript, usageAfterCompactions, wholeHistory } from "../../core/runtime/transcript";
import { SESSIONS_HELP } from "../help";
import { CliError, type Output } from "../output";
import { resolveProvider, type ProviderFlags } from "../provider-config";
import { openStore } from "../workspace";
import type { SessionsValues } from "./sessions";

const seqOption = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`--${name} must be a positive whole number (a seq)`);
  return n;
};

/** Every `sessions` command but `list`: they open the store (its own bundle, see esbuild.config.mjs). */
export async function manageCommand(
  root: string,
  command: string,
  id: string | undefined,
  rest: string[],
  values: SessionsValues,
  output: Output,
): Promise<number> {
  const needId = () => {
    if (!id) throw new CliError(`sessions ${command} needs a session id`);
    return { agentId: values.agent, sessionId: id };
  };
  if (command === "restore") {
    const { restoreCommand } = require("./sessions-restore") as typeof import("./sessions-restore");
    // The runtime's own bundle (esbuild.config.mjs), as for compact.
    const { createWorkspaceRuntime } =
      require("../../core/runtime/create") as typeof import("../../core/runtime/create");
    return restoreCommand(createWorkspaceRuntime, root, needId(), values, output);
  }
  if (command === "compact") {
    await compact(root, needId(), values, output);
    return 0;
  }
  const sessions = openStore(root);
  try {
    switch (command) {
      case "show": {
        const ref = needId();
        const before = seqOption("before", values.before);
        await openRecovered(sessions, ref, output);
        const page = await sessions.messages(ref, before === undefined ? {} : { beforeSequence: before });
        if (values.json) output.json(page);
        else {
          if (page.hasOlder) output.out(output.dim(`(older history: --before ${page.firstSeq})\n\n`));
          if (page.summary && before === undefined)
            output.out(`${output.dim("summary of earlier history:")}\n${page.summary}\n\n`);
          const usageAfter = usageAfterCompactions(page.events);
          for (const event of page.events) {
            const text = eventMarkdown(event, usageAfter);
            if (text) output.out(`${text}\n\n`);
          }
        }
        return 0;
      }
      case "rename": {
        const title = rest.join(" ").trim();
        if (!title) throw new CliError(`sessions rename needs a title`);
        await sessions.rename(needId(), title);
        return 0;
      }
      case "fork": {
        const at = seqOption("at", values.at);
        const item = await sessions.fork(needId(), at === undefined ? {} : { atSeq: at });
        if (values.json) output.json(item);
        else output.out(`${item.sessionId}\n`);
        return 0;
      }
      case "archive":
        await sessions.archive(needId());
        return 0;
      case "unarchive":
        await sessions.unarchive(needId());
        return 0;
      case "delete":
        await sessions.delete(needId());
        return 0;
      case "export":
        await openRecovered(sessions, needId(), output);
        await exportHistory(sessions, needId(), values.format, output);
        return 0;
      default:
        throw new CliError(`unknown sessions command '${command}'\n\n${SESSIONS_HELP}`);
    }
  } finally {
    await sessions.close();
  }
}

/**
 * Opens the session (the one path that recovers a crashed session: torn tail, draft,
 * open tool calls) and makes the repairs durable before anything is read.
 */
async function openRecovered(
  sessions: Sessions,
  ref: { agentId: string; sessionId: string },
  output: Output,
): Promise<void> {
  const { session, report } = await sessions.open(ref);
  for (const action of report.actions) output.err(output.dim(`repaired: ${action}\n`));
  if (report.readOnly) output.err(output.yellow(`read-only: ${report.readOnly}\n`));
  if (!session.readOnly) await sessions.flush(session);
}

/** Pages back one segment at a time, then prints oldest first. */
async function exportHistory(
  sessions: Sessions,
  ref: { agentId: string; sessionId: string },
  format: string,
  output: Output,
): Promise<void> {
  if (format !== "md" && format !== "jsonl") throw new CliError(`--format must be md or jsonl`);
  output.out(renderTranscript(await wholeHistory((options) => sessions.messages(ref, options)), format));
}

async function compact(
  root: string,
  ref: { agentId: string; sessionId: string },
  flags: ProviderFlags,
  output: Output,
): Promise<void> {
  const provider = resolveProvider(flags);
  // Its own bundle (esbuild.config.mjs): the list path never compiles the agent or the SDKs.
  const { createWorkspaceRuntime, singleProvider } =
    require("../../core/runtime/create") as typeof import("../../core/runtime/create");
  const runtime = createWorkspaceRuntime({
    root,
    agents: [{ id: ref.agentId, name: ref.agentId }],
    ...singleProvider(provider),
    approval: () => ({ reads: "ask", edits: "ask", commands: "ask" }),
    tools: () => [],
  });
  try {
    const { session } = await runtime.open(ref);
    if (session.readOnly) throw new CliError(`session ${ref.sessionId} is read-only: ${session.readOnly}`, 1);
    const outcome = await runtime.compactNow(ref);
    output.out(
      outcome.throughSeq
        ? `closed seq 1..${outcome.throughSeq} into a segment (${outcome.closed} messages, summary ${outcome.summaryChars} chars), folded ${outcome.folded}\n`
        : `nothing to close${outcome.note ? `: ${outcome.note}` : ""}; folded ${outcome.folded}\n`,
    );
  } finally {
    await runtime.close();
  }
}
