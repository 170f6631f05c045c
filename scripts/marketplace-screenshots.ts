// `node --import tsx scripts/marketplace-screenshots.ts`: the Marketplace page's screenshots,
// taken from the real workbench (code-server in Chromium) with the VSIX installed, into
// media/screenshots/:
//   - {light,dark}.png: the Sessions tree and a seeded conversation in the chat, the file it
//     talks about open beside it (sessions seeded through the core store, no model called);
//   - connect.png, first-message.png, approval.png, undo.png: the first five minutes (issue
//     19) as a new user meets them, with a loopback OpenAI-compatible server playing the
//     model: the chat's connect form, the first message answered with no session opened
//     first, an edit waiting in the diff editor with Accept / Reject in its title bar and on
//     the card, and that edit approved on the card, which then offers Undo.
// `… marketplace-screenshots.ts dark.png` takes only the shots named. Run folders live in .e2e/screenshots/.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { launchChromium } from "../test/support/workbench/chromium";
import { gotoWorkbench } from "../test/support/workbench/open-workbench";
import {
  E2E_DIR,
  installVsix,
  PROJECT_ROOT,
  startCodeServer,
  workbenchUrl,
} from "../test/support/workbench/code-server";
import { seedSessions, type SeededSession } from "../test/support/workbench/seed";
import { chatFrame, openDowncityView, scrolledSessionRow } from "../test/support/workbench/workbench";
import { startProviderServer, wire } from "../test/support/provider-server";

const FIRST_MINUTES = ["connect.png", "first-message.png", "approval.png", "undo.png"];
const THEMES = [
  { file: "light.png", theme: "Default Light Modern" },
  { file: "dark.png", theme: "Default Dark Modern" },
];
const OUT = join(PROJECT_ROOT, "media", "screenshots");
const MODEL = "gpt-4.1";
const CONVERSATION = "Fix restock changing every item";

const SESSIONS: SeededSession[] = [
  {
    id: "shot-tests",
    agentId: "code",
    title: "Add tests for lowStock",
    model: MODEL,
    turns: [
      "Add tests for lowStock at the threshold",
      "Added two cases to `src/inventory.spec.ts`: an item exactly at the threshold is low, one above it is not.",
    ],
  },
  {
    id: "shot-explain",
    agentId: "ask",
    title: "Explain the inventory module",
    model: MODEL,
    turns: [
      "What does src/inventory.ts do?",
      "It keeps stock levels: `lowStock` lists items at or below a threshold, `restock` adds to one item's quantity.",
    ],
  },
  {
    id: "shot-fix",
    agentId: "code",
    title: CONVERSATION,
    model: MODEL,
    turns: [
      "restock() changes the quantity of every item, not just the one with the SKU. Can you fix it?",
      [
        "The map in `restock` adds `amount` to **every** item: it never compares the SKU. Only the matching item should change:",
        "",
        "```ts",
        "export function restock(items: Item[], sku: string, amount: number): Item[] {",
        "  return items.map((item) =>",
        "    item.sku === sku ? { ...item, quantity: item.quantity + amount } : item,",
        "  );",
        "}",
        "```",
        "",
        "Items with other SKUs are now returned unchanged. Shall I add a test for that to `src/inventory.spec.ts`?",
      ].join("\n"),
      "Yes, add the test.",
      "Added `restock leaves other items alone` to `src/inventory.spec.ts`; it fails on the old code and passes on the fix.",
    ],
  },
];

async function shoot(theme: string, file: string, vsix: string): Promise<void> {
  const runDir = join(E2E_DIR, "screenshots", file.replace(/\.png$/, ""));
  rmSync(runDir, { recursive: true, force: true });
  await installVsix(runDir, vsix);
  const workspace = join(runDir, "sample-workspace");
  cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
  await seedSessions(workspace, SESSIONS);
  // A provider so the status bar names a model; nothing is sent to it.
  const env = { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: "http://127.0.0.1:9/v1", DOWNCITY_MODEL: MODEL };
  const server = await startCodeServer({
    runDir,
    env,
    settings: { "workbench.colorTheme": theme, "window.commandCenter": true },
  });
  try {
    const browser = await launchChromium(runDir, server.env);
    try {
      const page = browser.pages()[0] ?? (await browser.newPage());
      await page.setViewportSize({ width: 1280, height: 800 });
      await gotoWorkbench(page, workbenchUrl(server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      // The file the conversation is about, opened through Quick Open.
      await page.locator(".monaco-workbench .part.editor").click({ position: { x: 400, y: 300 } });
      await page.keyboard.press("F1");
      await page.locator(".quick-input-widget input").fill("inventory.ts");
      await page
        .locator(".quick-input-list .monaco-list-row", { hasText: "inventory.ts" })
        .first()
        .click({ timeout: 60_000 }); // the file search's first answer can take long on a busy machine
      await page.locator(".tabs-container .tab", { hasText: "inventory.ts" }).first().waitFor({ timeout: 15_000 });
      await openDowncityView(page);
      // The Sessions view starts small: wheel the row wholly into its pane before the click.
      await (await scrolledSessionRow(page, CONVERSATION)).click({ timeout: 30_000 });
      await chatFrame(page)
        .locator('article[aria-label="Assistant"]', { hasText: "fails on the old code" })
        .waitFor({ timeout: 30_000 });
      // The sidebar wide enough for the chat, and the chat taller than the short Sessions list:
      // drag the sidebar's edge and the sash above the Sessions pane.
      const sidebar = await page.locator(".part.sidebar").boundingBox();
      if (sidebar)
        await drag(
          page,
          sidebar.x + sidebar.width - 1,
          sidebar.y + sidebar.height / 2,
          sidebar.x + 520,
          sidebar.y + sidebar.height / 2,
        );
      const header = await page
        .locator(".pane-header", { hasText: /sessions/i })
        .first()
        .boundingBox();
      if (header && sidebar)
        await drag(
          page,
          header.x + header.width / 2,
          header.y - 1,
          header.x + header.width / 2,
          sidebar.y + sidebar.height - 170,
        );
      // TypeScript's start-up message in the status bar goes once the file is analysed.
      await page
        .locator(".statusbar-item", { hasText: "Analyzing" })
        .first()
        .waitFor({ state: "detached", timeout: 30_000 })
        .catch(() => {});
      // Focus in the editor and the mouse on nothing: no sash highlight, tooltip or hover.
      await page
        .locator(".monaco-editor .view-lines")
        .first()
        .click({ position: { x: 300, y: 320 } });
      await page.mouse.move(1000, 700);
      mkdirSync(OUT, { recursive: true });
      const target = join(OUT, file);
      await page.screenshot({ path: target });
      console.log(`${target}: ${Math.round(statSync(target).size / 1024)} KB (${theme})`);
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
  }
}

const FIRST_PROMPT = "Which function restocks items, and is it right?";
const FIRST_ANSWER = [
  "`restock` in `src/inventory.ts` adds `amount` to an item's quantity, but its `map` never compares the SKU, so **every** item is restocked:",
  "",
  "```ts",
  "items.map((item) => ({ ...item, quantity: item.quantity + amount }))",
  "```",
  "",
  "Only the item whose `sku` matches should change. Shall I fix it?",
].join("\n");
const OLD_LINE = "items.map((item) => ({ ...item, quantity: item.quantity + amount }))";
const NEW_LINE = "items.map((item) => (item.sku === sku ? { ...item, quantity: item.quantity + amount } : item))";

/** The first five minutes, light theme: the connect form, the first message, an edit waiting for approval, its Undo. */
async function shootFirstMinutes(vsix: string): Promise<void> {
  const runDir = join(E2E_DIR, "screenshots", "first-minutes");
  rmSync(runDir, { recursive: true, force: true });
  await installVsix(runDir, vsix);
  const workspace = join(runDir, "sample-workspace");
  cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
  let chats = 0;
  const provider = await startProviderServer(({ path }) => {
    if (path.endsWith("/models"))
      return { json: { object: "list", data: [{ id: "qwen2.5-coder:14b" }, { id: "llama3.1:8b" }] } };
    const sse = (script: Parameters<typeof wire.openaiChat>[0]) => ({
      sse: wire.openaiChat({ model: "qwen2.5-coder:14b", usage: { input: 1900, output: 120 }, ...script }),
    });
    chats++;
    if (chats === 1) return sse({ text: FIRST_ANSWER });
    if (chats === 2)
      return sse({
        toolCalls: [
          {
            id: "call_fix",
            name: "edit_file",
            arguments: { path: "src/inventory.ts", edits: [{ oldText: OLD_LINE, newText: NEW_LINE }] },
          },
        ],
      });
    return sse({ text: "Fixed: only the matching SKU is restocked." });
  });
  // No provider configured: the chat opens on its connect form.
  const env: Record<string, string> = {};
  for (const k of [
    "DOWNCITY_PROTOCOL",
    "DOWNCITY_BASE_URL",
    "DOWNCITY_MODEL",
    "DOWNCITY_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
  ])
    env[k] = "";
  const server = await startCodeServer({
    runDir,
    env,
    settings: { "workbench.colorTheme": "Default Light Modern", "window.commandCenter": true },
  });
  try {
    const browser = await launchChromium(runDir, server.env);
    try {
      await browser.addInitScript({ content: "window.__name = (f) => f;" });
      const page = browser.pages()[0] ?? (await browser.newPage());
      await page.setViewportSize({ width: 1280, height: 800 });
      await gotoWorkbench(page, workbenchUrl(server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncityView(page);
      const chat = () => chatFrame(page);
      const sidebar = await page.locator(".part.sidebar").boundingBox();
      if (sidebar)
        await drag(
          page,
          sidebar.x + sidebar.width - 1,
          sidebar.y + sidebar.height / 2,
          sidebar.x + 460,
          sidebar.y + sidebar.height / 2,
        );

      const baseURL = chat().getByRole("textbox", { name: "Base URL", exact: true });
      await baseURL.fill(provider.baseURL, { timeout: 60_000 });
      await baseURL.press("Tab");
      const model = chat().getByRole("combobox", { name: "Model", exact: true });
      await model.locator("option", { hasText: "qwen2.5-coder:14b" }).waitFor({ state: "attached", timeout: 30_000 });
      await model.selectOption("qwen2.5-coder:14b");
      await page.mouse.move(1000, 700);
      await still(page, "connect.png");

      await chat().getByRole("button", { name: "Connect", exact: true }).click();
      await baseURL.waitFor({ state: "detached", timeout: 30_000 });
      const box = chat().getByRole("textbox", { name: "Message", exact: true });
      await box.fill(FIRST_PROMPT);
      await box.press("Enter");
      await chat()
        .locator('article[aria-label="Assistant"]', { hasText: "Shall I fix it?" })
        .waitFor({ timeout: 60_000 });
      await page.mouse.move(1000, 700);
      await still(page, "first-message.png");

      await box.fill("Yes, fix it.");
      await box.press("Enter");
      await page
        .locator(".tabs-container .tab.active", { hasText: "Proposed by Downcity" })
        .waitFor({ timeout: 60_000 });
      await page
        .locator('.editor-actions .action-label[aria-label^="Accept"]')
        .filter({ visible: true })
        .first()
        .waitFor({ timeout: 60_000 });
      await chat()
        .getByRole("group", { name: "Tool edit_file: waiting for approval", exact: true })
        .getByRole("button", { name: "Approve", exact: true })
        .waitFor({ timeout: 60_000 });
      await page.mouse.move(1000, 700);
      await still(page, "approval.png");

      // Approved on the card: written, the diff closes, and the card offers Undo.
      await chat()
        .getByRole("group", { name: "Tool edit_file: waiting for approval", exact: true })
        .getByRole("button", { name: "Approve", exact: true })
        .click();
      await chat()
        .getByRole("group", { name: "Tool edit_file: done", exact: true })
        .getByRole("button", { name: "Undo", exact: true })
        .waitFor({ timeout: 60_000 });
      await chat()
        .locator('article[aria-label="Assistant"]', { hasText: "only the matching SKU" })
        .waitFor({ timeout: 60_000 });
      await page.mouse.move(1000, 700);
      await still(page, "undo.png");
    } finally {
      await browser.close();
    }
  } finally {
    await server.stop();
    await provider.close();
  }
}

async function still(page: import("playwright-core").Page, file: string): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const target = join(OUT, file);
  await page.screenshot({ path: target });
  console.log(`${target}: ${Math.round(statSync(target).size / 1024)} KB`);
}

async function drag(
  page: import("playwright-core").Page,
  fromX: number,
  fromY: number,
  toX: number,
  toY: number,
): Promise<void> {
  await page.mouse.move(fromX, fromY);
  await page.mouse.down();
  await page.mouse.move(toX, toY, { steps: 5 });
  await page.mouse.up();
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["esbuild.config.mjs"], { cwd: PROJECT_ROOT, stdio: "inherit" });
  execFileSync(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "scripts", "package-vsix.ts")], {
    cwd: PROJECT_ROOT,
    stdio: "inherit",
  });
  const vsix = join(PROJECT_ROOT, "dist", "downcity.vsix");
  // File names given on the command line take only those shots (one flow makes the four first-minutes ones).
  const only = process.argv.slice(2);
  const wanted = (file: string) => only.length === 0 || only.includes(file);
  if (FIRST_MINUTES.some(wanted)) await shootFirstMinutes(vsix);
  for (const { theme, file } of THEMES) if (wanted(file)) await shoot(theme, file, vsix);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
