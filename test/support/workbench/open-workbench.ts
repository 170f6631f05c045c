// code-server + Chromium started together and stopped in reverse, for the real-VS-Code tests (test/e2e/helpers.ts
// re-exports these) and the benches that drive the workbench (bench/*-host.ts, bench/host/).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium } from "./chromium";
import { CODE_SERVER_BIN, startCodeServer, type CodeServer, type CodeServerOptions } from "./code-server";

/** Skip reason when the machine has no code-server/Chromium (scripts/setup-vscode.sh installs them). */
export function missingVsCode(): string | false {
  if (!existsSync(CODE_SERVER_BIN)) return `code-server missing: run scripts/setup-vscode.sh (${CODE_SERVER_BIN})`;
  if (!existsSync(process.env.CHROMIUM ?? "/usr/bin/chromium")) return "chromium missing: run scripts/setup-vscode.sh";
  return false;
}

export interface Workbench {
  server: CodeServer;
  browser: BrowserContext;
  page: Page;
  runDir: string;
  /** Saves a screenshot as <out>/<name>.png; never throws (a dead page must not hide the real error). */
  screenshot(name: string): Promise<string>;
  /** Stops Chromium, then code-server's process group. */
  close(): Promise<void>;
}

/**
 * The bound on opening the workbench page. Playwright's default (30 s) is too short on a loaded machine: connect-ui
 * runs at load 30 died on a blank page before Downcity ran, while the waits after it already allow 60 s and more.
 */
export const WORKBENCH_GOTO_MS = 120_000;

/** The bound of a Playwright action or wait in a workbench that names none. */
export const UNBOUNDED_ACTION_MS = 60_000;

/** Opens the workbench at `url` (workbenchUrl): every test, bench and script does it here, with the one bound. */
export async function gotoWorkbench(page: Page, url: string): Promise<void> {
  await page.goto(url, { timeout: WORKBENCH_GOTO_MS });
}

export async function openWorkbench(out: string, options: Omit<CodeServerOptions, "runDir"> = {}): Promise<Workbench> {
  const runDir = join(out, "run");
  const server = await startCodeServer({ ...options, runDir });
  let browser: BrowserContext;
  try {
    browser = await launchChromium(runDir, server.env);
  } catch (error) {
    await server.stop();
    throw error;
  }
  // An action or wait given no bound of its own gets 60 s, the bound the UI tests give theirs: Playwright's 30 s
  // default ran out at load 37 on a first fill of the message box (first5-keys-ui, the view's first open activating
  // the extension), while the explicit waits around it allow 60 s.
  browser.setDefaultTimeout(UNBOUNDED_ACTION_MS);
  const page = browser.pages()[0] ?? (await browser.newPage());
  return {
    server,
    browser,
    page,
    runDir,
    async screenshot(name) {
      const file = join(out, `${name}.png`);
      await page.screenshot({ path: file }).catch(() => {});
      return file;
    },
    async close() {
      await browser.close().catch(() => {});
      await server.stop();
    },
  };
}

/**
 * The pid of the one extension host under code-server's process `rootPid` (VS Code forks
 * it with `--type=extensionHost`); throws unless there is exactly one.
 */
export function extensionHostPid(rootPid: number): number {
  const rows = execFileSync("ps", ["-e", "-o", "pid=,ppid=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3]! }));
  const inTree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) if (!inTree.has(row.pid) && inTree.has(row.ppid)) grew = Boolean(inTree.add(row.pid));
  }
  const hosts = rows.filter((r) => inTree.has(r.pid) && /--type=extensionHost/.test(r.args));
  if (hosts.length !== 1)
    throw new Error(
      `expected one extension host under pid ${rootPid}, found ${hosts.length}: ${hosts.map((h) => h.args).join(" | ")}`,
    );
  return hosts[0]!.pid;
}
