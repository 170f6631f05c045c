// Debian's Chromium driven by playwright-core (which downloads no browser of its own).
// A persistent context keeps the profile in the run folder instead of os.tmpdir().
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

export const CHROMIUM_BIN = process.env.CHROMIUM ?? "/usr/bin/chromium";

export function launchChromium(runDir: string, env: NodeJS.ProcessEnv, headless = true): Promise<BrowserContext> {
  return chromium.launchPersistentContext(join(runDir, "chromium-profile"), {
    executablePath: CHROMIUM_BIN,
    headless,
    env: env as Record<string, string>,
    viewport: { width: 1400, height: 900 },
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}
