import type { Tool } from "../types";
import { createEditFileTool } from "./edit-file";
import { createGlobTool } from "./glob";
import { createGrepTool } from "./grep";
import { createListDirTool } from "./list-dir";
import { createReadFileTool } from "./read-file";
import { createRunCommandTool, type RunCommandOptions } from "./run-command";
import { createWriteFileTool } from "./write-file";

export interface NodeToolsOptions {
  /** ripgrep binary for grep; `false` forces the JS scan; undefined looks for `rg` on PATH. */
  ripgrep?: string | false;
  /** How long the JS grep's regular expression may run per call (default 10 s). */
  grepTimeLimitMs?: number;
  /** run_command defaults (timeout, kill grace). */
  command?: RunCommandOptions;
}

/** The Node implementations of the built-in tools, used by the CLI and tests. */
export function createNodeTools(options: NodeToolsOptions = {}): Tool[] {
  const grep = {
    ...(options.ripgrep === undefined ? {} : { ripgrep: options.ripgrep }),
    ...(options.grepTimeLimitMs === undefined ? {} : { jsTimeLimitMs: options.grepTimeLimitMs }),
  };
  return [
    createReadFileTool(),
    createListDirTool(),
    createGlobTool(),
    createGrepTool(grep),
    createEditFileTool(),
    createWriteFileTool(),
    createRunCommandTool(options.command),
  ];
}
