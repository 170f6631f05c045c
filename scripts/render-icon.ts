// Renders media/icon.svg to media/icon.png (128×128, what the Marketplace shows) with
// Debian's Chromium. Run after editing the SVG: node --import tsx scripts/render-icon.ts
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_BIN } from "../test/support/workbench/chromium";
import { E2E_DIR, PROJECT_ROOT, isolatedEnv } from "../test/support/workbench/code-server";

async function main(): Promise<void> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_BIN,
    args: ["--no-sandbox", "--disable-gpu"],
    env: isolatedEnv(join(E2E_DIR, "render-icon")) as Record<string, string>,
  });
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
    await page.goto(`file://${join(PROJECT_ROOT, "media", "icon.svg")}`);
    await page.screenshot({ path: join(PROJECT_ROOT, "media", "icon.png"), omitBackground: true });
  } finally {
    await browser.close();
  }
}
void main();
