// Issue 25's "Restricted Mode starts no server" in the real workbench: code-server with workspace
// trust on (the other UI tests turn it off), a folder whose .vscode/mcp.json names the fixture
// server, which appends its pid to a marker file the moment it runs. Untrusted: the chat is
// read-only saying no MCP server runs, MCP Servers says why, its Start starts nothing, and no
// process ever ran (no marker). Trusted through Manage Workspace Trust: the first run asks the
// consent, and the server runs. A screenshot per step lands in test/.tmp/e2e/mcp-restricted-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { startProviderServer, wire } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  gotoWorkbench,
  fileMatches,
  missingVsCode,
  openChatWorkbench,
  outputDir,
  runPaletteCommand,
  installPackagedVsix,
} from "./helpers";

const FIXTURE = join(PROJECT_ROOT, "test/support/mcp-fixture-server.ts");

test(
  "MCP in Restricted Mode (real workbench, trust on): nothing starts until the folder is trusted",
  { skip: missingVsCode(), timeout: 600_000 },
  async (t) => {
    const out = outputDir("mcp-restricted-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    const marker = join(out, "fixture-started");
    mkdirSync(join(workspace, ".vscode"), { recursive: true });
    writeFileSync(
      join(workspace, ".vscode", "mcp.json"),
      JSON.stringify({
        servers: {
          fx: {
            type: "stdio",
            command: process.execPath,
            args: ["--import", "tsx", FIXTURE],
            cwd: PROJECT_ROOT,
            env: { FIXTURE_STARTED: marker },
          },
        },
      }),
    );

    const model = scriptedModel([
      () => ({ sse: wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, text: "Trusted now." }) }),
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    const { workbench, page, chat, step } = await openChatWorkbench(
      t,
      out,
      provider.baseURL,
      // No "Do you trust the authors?" prompt: the folder opens untrusted, in Restricted Mode.
      { "security.workspace.trust.startupPrompt": "never" },
      { workspaceTrust: true },
    );

    await step("01 untrusted: the chat is read-only saying no MCP server runs; MCP Servers says why", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 60_000 });
      await chat()
        .getByRole("status")
        .filter({ hasText: "not trusted" })
        .filter({ hasText: "MCP server" })
        .first()
        .waitFor({ timeout: 60_000 });
      assert.equal(await chat().getByRole("button", { name: "Send", exact: true }).isDisabled(), true);
      await runPaletteCommand(page, "Downcity: MCP Servers", 60_000);
      await row(page, "fx").filter({ hasText: "stopped" }).waitFor({ timeout: 30_000 });
      assert.equal(
        await page.locator(".quick-input-widget input").getAttribute("placeholder"),
        "Restricted Mode starts no MCP server: trust the workspace to start them",
      );
    });

    await step("02 Start in Restricted Mode is refused with the reason, and no server process ran", async () => {
      await row(page, "fx").click({ timeout: 30_000 });
      await row(page, "Start").click({ timeout: 30_000 });
      await page
        .locator(".notifications-toasts .notification-toast", { hasText: 'could not start the MCP server "fx"' })
        .filter({ hasText: "Restricted Mode" })
        .waitFor({ timeout: 30_000 });
      // The refusal comes before a process is spawned: had one run, its first line would be in the marker.
      assert.equal(existsSync(marker), false, "no MCP server process was started");
      assert.equal(await consentDialog(page).count(), 0, "nothing was asked either");
    });

    await step("03 Manage Workspace Trust → Trust: the chat takes input again", async () => {
      await runPaletteCommand(page, "Workspaces: Manage Workspace Trust", 60_000);
      await page
        .locator(".workspace-trust-editor")
        .getByRole("button", { name: /^Trust( Folder)?$/ })
        .first()
        .click({ timeout: 60_000 });
      await chat().getByRole("button", { name: "New Session", exact: true }).click({ timeout: 60_000 });
      await chat()
        .getByRole("textbox", { name: "Message", exact: true })
        .fill("Use the fixture server.", { timeout: 60_000 });
      await chat().getByRole("button", { name: "Send", exact: true }).click({ timeout: 30_000 });
    });

    await step("04 trusted: the run asks the folder's consent, then the server runs", async () => {
      const dialog = consentDialog(page);
      await dialog.waitFor({ timeout: 60_000 });
      assert.match(await dialog.innerText(), /Start the MCP server "fx" from \.vscode\/mcp\.json\?/);
      await dialog.getByRole("button", { name: "Allow", exact: true }).click({ timeout: 30_000 });
      await fileMatches(marker, /^\d+\n/, 60_000);
      await model.request(0, "the run after trust");
      await chat()
        .locator('article.message.assistant[aria-label="Assistant"]', { hasText: "Trusted now." })
        .last()
        .waitFor({ timeout: 60_000 });
      await runPaletteCommand(page, "Downcity: MCP Servers", 60_000);
      await row(page, "fx")
        .filter({ hasText: /running · \d+ tools/ })
        .waitFor({ timeout: 60_000 });
      assert.equal(
        await page.locator(".quick-input-widget input").getAttribute("placeholder"),
        "Pick a server to start, stop or restart it",
      );
      await page.keyboard.press("Escape");
    });
  },
);

const consentDialog = (page: Page) => page.locator(".monaco-dialog-box", { hasText: "Start the MCP server" });
const row = (page: Page, text: string) =>
  page.locator(".quick-input-widget .monaco-list-row", { hasText: text }).first();
