import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const repo = join(__dirname, "..", "..");
export const CLI = join(repo, "dist", "cli.js");

/** Builds dist/cli.js once per test file, so the tests run the shipped bundle. */
export function buildCli(): void {
  execFileSync(process.execPath, [join(repo, "esbuild.config.mjs")], { cwd: repo, stdio: "inherit" });
  if (!existsSync(CLI)) throw new Error("dist/cli.js was not built");
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Environment for a CLI child: a loopback provider, no colour, no inherited secrets. */
export function cliEnv(baseURL: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: "1" };
  return { ...env, DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: baseURL, DOWNCITY_MODEL: "gpt-4o", DOWNCITY_API_KEY: "sk-test", ...extra };
}

export function startCli(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; result: Promise<CliResult>; stderrText(): string } {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const result = new Promise<CliResult>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, result, stderrText: () => stderr };
}

export async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return startCli(args, env).result;
}

/** Polls `check` every 10 ms, at most `limitMs`. */
export async function waitFor(check: () => boolean, limitMs = 10_000, what = "condition"): Promise<void> {
  const until = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
