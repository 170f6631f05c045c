// Shared by the real-VS-Code tests: an output folder per test file under test/.tmp/e2e/,
// code-server + Chromium started together and stopped in reverse, bounded waits, and
// failure artefacts (screenshot, logs) left in the output folder.
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchChromium } from "../../scripts/vscode/chromium";
import { CODE_SERVER_BIN, PROJECT_ROOT, startCodeServer, type CodeServer, type CodeServerOptions } from "../../scripts/vscode/code-server";

export const E2E_OUT = join(PROJECT_ROOT, "test", ".tmp", "e2e");

/** Skip reason when the machine has no code-server/Chromium (scripts/setup-vscode.sh installs them). */
export function missingVsCode(): string | false {
  if (!existsSync(CODE_SERVER_BIN)) return `code-server missing: run scripts/setup-vscode.sh (${CODE_SERVER_BIN})`;
  if (!existsSync(process.env.CHROMIUM ?? "/usr/bin/chromium")) return "chromium missing: run scripts/setup-vscode.sh";
  return false;
}

/** A fresh output folder for one test file: test/.tmp/e2e/<name>/ (the previous run's is replaced). */
export function outputDir(name: string): string {
  const dir = join(E2E_OUT, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

export { withTimeout } from "../support/with-timeout";

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
