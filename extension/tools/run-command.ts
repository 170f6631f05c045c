import * as vscode from "vscode";
import type { RunCommandParams } from "../../core/tools/definitions";
import { ToolError } from "../../core/tools/errors";
import { createRunCommandTool, type RunCommandOptions } from "../../core/tools/node/run-command";
import { displayPath, resolveInsideRoot } from "../../core/tools/sandbox";
import type { Tool } from "../../core/tools/types";
import { refuseUri } from "./paths";
import type { CommandTerminals } from "./terminals";

/**
 * run_command: the core's process handling (own process group, scrubbed env, timeout,
 * output caps, SIGTERM then SIGKILL to the group), with its output streamed live to the
 * session's terminal and the chat's card, and stopped with the terminal or the session.
 */
export function createEditorRunCommandTool(
  terminals: CommandTerminals,
  options: RunCommandOptions = {},
): Tool<RunCommandParams> {
  const core = createRunCommandTool(options);
  return {
    ...core,
    async preview(args, ctx) {
      refuseUri(args.cwd);
      const cwd = await resolveInsideRoot(ctx.root, args.cwd, { forWrite: false });
      return { kind: "command", command: args.command, cwd: displayPath(ctx.root, cwd) };
    },
    async execute(args, ctx) {
      if (!vscode.workspace.isTrusted)
        throw new ToolError("the workspace is in Restricted Mode: Downcity runs no command");
      refuseUri(args.cwd);
      const ref = { sessionId: ctx.sessionId ?? "default", ...(ctx.agentId ? { agentId: ctx.agentId } : {}) };
      const term = terminals.terminal(ref);
      term.write(`\x1b[1m$ ${args.command}\x1b[0m${args.cwd && args.cwd !== "." ? `   (in ${args.cwd})` : ""}\n`);
      const out = await terminals.run(ref, ctx.signal, (signal) =>
        core.execute(args, {
          ...ctx,
          signal,
          onUpdate: (update) => {
            term.write(update.text);
            ctx.onUpdate?.(update);
          },
        }),
      );
      const status = out.details?.kind === "command" ? out.details : undefined;
      term.write(
        `\x1b[2m[${status?.timedOut ? "timed out" : status?.signal ? `killed (${status.signal})` : `exit code ${status?.exitCode ?? "?"}`}]\x1b[0m\n`,
      );
      return out;
    },
  };
}
