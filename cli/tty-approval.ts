import { createInterface } from "node:readline/promises";
import type { ApproveFn } from "../core/agent";
import type { ToolKind } from "../core/tools/types";
import type { Output } from "./output";

/**
 * Asks on the terminal before a tool the policy does not allow runs. "a" allows that
 * kind of tool for the rest of the run. Without a TTY nothing can be asked: denied.
 */
export function ttyApproval(output: Output, input: NodeJS.ReadStream = process.stdin): ApproveFn | undefined {
  if (!input.isTTY) return undefined;
  const always = new Set<ToolKind>();
  return async (request, signal) => {
    if (always.has(request.kind)) return { approved: true };
    const rl = createInterface({ input, output: process.stderr });
    try {
      const answer = (await rl.question(`\n${output.yellow("?")} Allow ${output.bold(request.toolName)}: ${request.summary}  [y]es / [N]o / [a]lways ${request.kind} › `, { signal })).trim().toLowerCase();
      if (answer === "a" || answer === "always") always.add(request.kind);
      if (answer === "y" || answer === "yes" || answer === "a" || answer === "always") return { approved: true };
      return { approved: false, reason: "denied at the terminal" };
    } finally {
      rl.close();
    }
  };
}
