import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";
import { createInterface } from "node:readline/promises";
import { mergeMcpConfigs, type McpInput } from "../core/runtime/mcp";
import { readMcpFile, WORKSPACE_MCP_FILE } from "../core/runtime/mcp";
import { McpManager } from "../core/runtime/mcp";
import { CliMcpConsent } from "./mcp-consent";
import type { Output } from "./output";

export interface CliMcpOptions {
  /** --mcp-trust: start the folder's `.vscode/mcp.json` servers without asking. */
  trust: boolean;
  /** --mcp-allow SERVER[/TOOL]: calls that run without asking (like "always allow"). */
  allow: readonly string[];
  /** --no-mcp */
  off: boolean;
}

/** `$XDG_CONFIG_HOME/downcity` (default `~/.config/downcity`). */
function configDir(env: NodeJS.ProcessEnv): string {
  const base =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "downcity");
}

/** `$XDG_CONFIG_HOME/downcity/mcp.json` (default `~/.config`): the user's own servers, trusted. */
export function userMcpFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), "mcp.json");
}

/** `$XDG_CONFIG_HOME/downcity/mcp-consent.json`: the folders' servers the user allowed at the terminal. */
export function mcpConsentFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), "mcp-consent.json");
}

/** The input's environment variable: `${input:api-key}` → DOWNCITY_MCP_INPUT_API_KEY. */
export const inputEnvName = (id: string) => `DOWNCITY_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;

/**
 * The CLI's MCP servers: the user file plus the folder's `.vscode/mcp.json`. A folder's
 * server (it may have come with a clone) starts only after a "y" at the terminal (then
 * remembered, per folder and launch fingerprint, in the user's config dir) or with
 * --mcp-trust. A run waits for servers as long as they take to start: it has no next
 * run for a slow one to join. Inputs come from the environment
 * (never asked on the terminal, where a secret would echo); server stderr goes to stderr, dimmed.
 */
export async function cliMcp(
  root: string,
  output: Output,
  options: CliMcpOptions,
  env: NodeJS.ProcessEnv = process.env,
  stdin: NodeJS.ReadStream = process.stdin,
): Promise<McpManager | undefined> {
  if (options.off) return undefined;
  const user = await readMcpFile(userMcpFile(env), { kind: "user", label: userMcpFile(env) });
  const workspace = await readMcpFile(join(root, WORKSPACE_MCP_FILE), { kind: "workspace", label: WORKSPACE_MCP_FILE });
  const config = mergeMcpConfigs([user, workspace]);
  for (const p of config.problems)
    output.err(output.yellow(`mcp: ${p.source.label}${p.server ? ` (${p.server})` : ""}: ${p.message}\n`));
  if (config.servers.length === 0) return undefined;
  const allowed = new Set(options.allow);
  const remembered = new CliMcpConsent(mcpConsentFile(env), (m) => output.err(output.yellow(`mcp: ${m}\n`)));
  const manager = new McpManager({
    root,
    env,
    log: {
      stderr: (server, line) => output.err(output.dim(`[mcp ${server}] ${line}\n`)),
      info: (server, message) => output.err(output.dim(`[mcp ${server}] ${message}\n`)),
    },
    consent: async (req) => {
      if (options.trust || remembered.has(root, req.fingerprint)) return true;
      if (!stdin.isTTY) {
        output.err(
          output.yellow(
            `mcp: not starting "${req.server}" from ${req.source.label} (${req.launch}): pass --mcp-trust to allow the folder's servers\n`,
          ),
        );
        return false;
      }
      const rl = createInterface({ input: stdin, output: process.stderr });
      try {
        const answer = await rl.question(
          `\n${output.yellow("?")} Start the MCP server ${output.bold(req.server)} from ${req.source.label}?\n  ${req.launch}\n  [y]es / [N]o › `,
        );
        const yes = /^y(es)?$/i.test(answer.trim());
        if (yes) remembered.remember(root, req.fingerprint);
        return yes;
      } finally {
        rl.close();
      }
    },
    firstRunWaitMs: 30_000,
    input: async (input: McpInput) => env[inputEnvName(input.id)] ?? input.default,
    alwaysAllowed: (server, tool) => allowed.has(server) || allowed.has(`${server}/${tool}`),
  });
  manager.setConfig(config);
  return manager;
}
