import { createInterface } from "node:readline/promises";
import type { ApproveFn } from "../core/runtime";
import type { Output } from "./output";

/**
 * Asks on the terminal before a tool the policy does not allow runs. "s" allows it for
 * the rest of the session (a command: the same command line). Without a TTY nothing can
 * be asked: refused by the policy.
 */
export function ttyApproval(output: Output, input: NodeJS.ReadStream = process.stdin): ApproveFn | undefined {
  if (!input.isTTY) return undefined;
  return async (request, signal) => {
    const rl = createInterface({ input, output: process.stderr });
    try {
      const answer = (
        await rl.question(
          `\n${output.yellow("?")} Allow ${output.bold(request.toolName)}: ${request.summary}  [y]es / [N]o / [s]ession › `,
          { signal },
        )
      )
        .trim()
        .toLowerCase();
      if (answer === "s" || answer === "session") return { approved: true, scope: "session" };
      if (answer === "y" || answer === "yes") return { approved: true, scope: "once" };
      return { approved: false, reason: "denied at the terminal" };
    } finally {
      rl.close();
    }
  };
}
