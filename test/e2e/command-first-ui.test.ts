// Issue 20: the extension activates in two steps, the Sessions tree first and the commands with the rest after the
// tree's first draw (at most 2 s; 0.5 s when no Downcity view is open). A Downcity command run from the palette in a
// fresh window, before any Downcity view was opened, must still run: VS Code holds it until activation has ended.
// The real workbench (code-server, dist/downcity.vsix installed), the provider given by DOWNCITY_* and played by the
// loopback provider server. Screenshots land in test/.tmp/e2e/command-first-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame } from "../support/workbench/workbench";
import { startProviderServer, wire } from "../support/provider-server";
import {
  chainedSteps,
  dirHolds,
  gotoWorkbench,
  missingVsCode,
  openWorkbench,
  outputDir,
  runPaletteCommand,
  installPackagedVsix,
} from "./helpers";

const PROMPT = "Which module restocks items?";
const ANSWER = "The inventory module restocks items per SKU.";

test(
  "a Downcity command from the palette runs in a fresh window before any Downcity view was opened",
  { skip: missingVsCode(), timeout: 300_000 },
  async (t) => {
    const out = outputDir("command-first-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    const sessionsDir = join(workspace, ".downcity", "agents", "code", "sessions");
    const provider = await startProviderServer(() => ({
      sse: wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, text: ANSWER }),
    }));
    t.after(() => provider.close());
    const workbench = await openWorkbench(out, {
      env: { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: provider.baseURL, DOWNCITY_MODEL: "gpt-4o" },
    });
    t.after(() => workbench.close());
    const { page } = workbench;
    const chat = () => chatFrame(page);
    const box = () => chat().getByRole("textbox", { name: "Message", exact: true });
    const step = chainedSteps(t, workbench);

    await step(
      "01 Downcity: New Session from the palette first thing: the agent is asked, the chat opens on it",
      async () => {
        await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
        await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
        await runPaletteCommand(page, "Downcity: New Session", 60_000);
        await page
          .locator(".quick-input-list .monaco-list-row", { hasText: "Code" })
          .filter({ visible: true })
          .first()
          .click({ timeout: 60_000 });
        await chat()
          .getByRole("button", { name: /Session title: New session/ })
          .waitFor({ timeout: 60_000 });
        await box().waitFor({ timeout: 60_000 });
        await workbench.screenshot("01-new-session");
        assert.equal(
          await page.locator(".notifications-toasts", { hasText: /not found/i }).count(),
          0,
          "no 'command not found'",
        );
        assert.equal(
          existsSync(sessionsDir) ? readdirSync(sessionsDir).length : 0,
          0,
          "nothing on disk before a message",
        );
      },
    );

    await step("02 its first message is answered and the session is on disk", async () => {
      await box().fill(PROMPT);
      await box().press("Enter");
      await chat().locator("article.message.assistant", { hasText: ANSWER }).waitFor({ timeout: 60_000 });
      const ids = await dirHolds(sessionsDir, 1, 60_000);
      assert.equal(ids.length, 1, `one session on disk: ${ids.join(", ")}`);
      await workbench.screenshot("02-answered");
    });
  },
);
