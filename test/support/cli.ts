import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const repo = join(__dirname, "..", "..");
export const CLI = join(repo, "dist", "cli.js");

/**
 * Makes sure dist/cli.js is the bundle of the current sources. `npm test` builds it once
 * before the suite, so this only builds when a CLI test file runs on its own after an edit.
 */
export function buildCli(): void {
  if (existsSync(CLI) && statSync(CLI).mtimeMs >= newestSource()) return;
  execFileSync(process.execPath, [join(repo, "esbuild.config.mjs")], { cwd: repo, stdio: "inherit" });
  if (!existsSync(CLI)) throw new Error("dist/cli.js was not built");
}

function newestSource(): number {
  let newest = statSync(join(repo, "package.json")).mtimeMs;
  for (const dir of ["cli", "core"]) {
    for (const entry of readdirSync(join(repo, dir), { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
    }
  }
  return newest;
}

/** Runs the CLI on a real pseudo-terminal (util-linux `script`); `screen()` is what the terminal showed. */
export function onTerminal(args: string[], env: NodeJS.ProcessEnv) {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const child = spawn("script", ["-q", "-e", "-c", command, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let screen = "";
  child.stdout.on("data", (d) => (screen += d));
  const done = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, done, screen: () => screen };
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
  return {
    ...env,
    DOWNCITY_PROTOCOL: "openai-chat",
    DOWNCITY_BASE_URL: baseURL,
    DOWNCITY_MODEL: "gpt-4o",
    DOWNCITY_API_KEY: "sk-test",
    ...extra,
  };
}

export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; result: Promise<CliResult>; stderrText(): string } {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const result = new Promise<CliResult>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
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
