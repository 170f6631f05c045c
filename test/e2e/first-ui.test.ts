// Issue 19 items 1, 5, 6, 7 as a new user meets them in the real workbench: dist/downcity.vsix
// in code-server, the provider given by DOWNCITY_* and played by the loopback provider
// server, the controls clicked through their accessible names. A screenshot per step lands
// in test/.tmp/e2e/first-ui/; the two timings are printed (BENCHMARKS.md, section "first").
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame, chatFrameElement, sessionRow } from "../support/workbench/workbench";
import { sessionPaths } from "../../core/storage";
import { startProviderServer, wire } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  dirHolds,
  gotoWorkbench,
  chainedSteps,
  fileMatches,
  missingVsCode,
  openWorkbench,
  outputDir,
  runPaletteCommand,
  setSidebarWidth,
  installPackagedVsix,
} from "./helpers";

const FIRST_PROMPT = "Which module restocks items?";
const FIRST_ANSWER = "The inventory module restocks items per SKU.";
const ASK_PROMPT = "Explain the restock rule in one line.";
const ASK_ANSWER = "Restock adds the amount to the matching SKU only.";
const HELD_PROMPT = "List every SKU with its stock level.";
const HELD_ANSWER = "Here are the SKUs and their stock levels, one per line.";

const sse = (text: string) => wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, text });

const sessionsDir = (workspace: string, agentId: string) => join(workspace, ".downcity", "agents", agentId, "sessions");

function sessionIds(workspace: string, agentId: string): string[] {
  const dir = sessionsDir(workspace, agentId);
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** The composer bar's controls in one row, and no word of the chat split across two lines. */
function layoutFacts(chat: FrameLocator) {
  return chat.locator("body").evaluate(() => {
    const bar = Array.from(document.querySelectorAll<HTMLElement>(".composer-bar > *"))
      .filter((el) => el.getClientRects().length && !el.classList.contains("spacer"))
      .map((el) => ({
        name: el.getAttribute("aria-label") ?? el.textContent!.trim(),
        top: el.getBoundingClientRect().top,
        bottom: el.getBoundingClientRect().bottom,
      }));
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest("pre, textarea, select")) continue;
      for (const m of node.textContent!.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index!);
        range.setEnd(node, m.index! + m[0].length);
        const tops = new Set(
          Array.from(range.getClientRects())
            .filter((r) => r.width > 0)
            .map((r) => Math.round(r.top)),
        );
        if (tops.size > 1) broken.push(m[0]);
      }
    }
    return {
      bar,
      broken,
      width: document.documentElement.clientWidth,
      overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    };
  });
}

test(
  "first five minutes in the real workbench: first message, agent picker, keys, editor chat, narrow widths",
  { skip: missingVsCode(), timeout: 600_000 },
  async (t) => {
    const out = outputDir("first-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });

    const model = scriptedModel([
      () => ({ sse: sse(FIRST_ANSWER) }),
      () => ({ sse: sse(ASK_ANSWER) }),
      // Held after a few words until the client goes away (Escape stops the run).
      () => ({ sse: sse(HELD_ANSWER), stallAfter: 6 }),
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    const workbench = await openWorkbench(out, {
      env: { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: provider.baseURL, DOWNCITY_MODEL: "gpt-4o" },
    });
    t.after(() => workbench.close());
    const { page } = workbench;
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    const chat = () => chatFrame(page);
    const box = () => chat().getByRole("textbox", { name: "Message", exact: true });
    const figures: Record<string, number> = {};
    const step = chainedSteps(t, workbench);

    await step("01 the chat is ready with no session open and takes most of the container", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      // The extension activates when its view opens: this figure includes the activation.
      const clicked = Date.now();
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 60_000 });
      await box().waitFor({ timeout: 60_000 });
      assert.equal(await box().isEnabled(), true, "the message box takes input with no session open");
      figures.viewOpenToChatReadyMs = Date.now() - clicked;
      const chatHeight = (await chatFrameElement(page).boundingBox())!.height;
      const sessionsPane = page
        .locator(".pane", { has: page.locator(".pane-header", { hasText: /^Sessions/i }) })
        .first();
      const sessionsHeight = (await sessionsPane.boundingBox())!.height;
      assert.ok(
        chatHeight > 2 * sessionsHeight,
        `the chat (${chatHeight} px) takes most of the container, the Sessions view (${sessionsHeight} px) starts small`,
      );
      assert.deepEqual(sessionIds(workspace, "code"), [], "no session yet");
    });

    await step("02 the first message with no session open starts a session and is answered", async () => {
      await box().fill(FIRST_PROMPT);
      const sent = Date.now();
      await box().press("Enter");
      const answer = chat().locator("article.message.assistant", { hasText: FIRST_ANSWER });
      await chat()
        .locator("article.message.assistant .markdown", { hasText: /\S/ })
        .first()
        .waitFor({ timeout: 60_000 });
      figures.firstMessageToFirstTokenMs = Date.now() - sent;
      await answer.waitFor({ timeout: 60_000 });
      const body = await model.request(0, "the first message");
      assert.match(JSON.stringify(body.messages), /Which module restocks items\?/);
      // The answer shows before the session's first batch reaches disk (write-behind): wait for its directory.
      const ids = await dirHolds(sessionsDir(workspace, "code"), 1, 60_000);
      assert.equal(ids.length, 1, `one session on disk: ${ids.join(", ")}`);
      await fileMatches(sessionPaths(workspace, "code", ids[0]!).active, /restocks items per SKU/, 60_000);
      const userMessages = readFileSync(sessionPaths(workspace, "code", ids[0]!).active, "utf8")
        .split("\n")
        .filter((l) => l.includes('"user/message"') && l.includes(FIRST_PROMPT));
      assert.equal(userMessages.length, 1, "the message logged once");
      await sessionRow(page, FIRST_PROMPT).waitFor({ timeout: 60_000 });
      await chat()
        .getByRole("button", { name: /Session title: Which module restocks items/ })
        .waitFor({ timeout: 60_000 });
    });

    await step("03 Ctrl+Alt+I focuses the chat's message box", async () => {
      await page.locator(".monaco-workbench .part.editor").click({ position: { x: 400, y: 300 } });
      await page.keyboard.press("Control+Alt+KeyI");
      await box().and(chat().locator(":focus")).waitFor({ timeout: 15_000 });
    });

    await step("04 changing the agent asks first, then the new Ask session answers", async () => {
      await chat().getByRole("combobox", { name: "Agent" }).selectOption("ask");
      const ask = chat().getByRole("alertdialog", { name: "Change agent" });
      await ask.waitFor({ timeout: 15_000 });
      await workbench.screenshot("04a-asked");
      await ask.getByRole("button", { name: "Start New Session" }).click();
      await chat()
        .getByRole("button", { name: /Session title: New session/ })
        .waitFor({ timeout: 15_000 });
      await box().fill(ASK_PROMPT);
      await chat().getByRole("button", { name: "Send", exact: true }).click();
      await chat().locator("article.message.assistant", { hasText: ASK_ANSWER }).waitFor({ timeout: 60_000 });
      const ids = await dirHolds(sessionsDir(workspace, "ask"), 1, 60_000);
      assert.equal(ids.length, 1, "the Ask session is on disk under its agent");
      await fileMatches(sessionPaths(workspace, "ask", ids[0]!).active, /matching SKU only/, 60_000);
      assert.equal(sessionIds(workspace, "code").length, 1, "the Code session is left as it was");
    });

    await step("05 Escape in the chat stops a held run", async () => {
      await box().fill(HELD_PROMPT);
      await box().press("Enter");
      await model.request(2, "the held prompt");
      await chat().getByRole("button", { name: "Stop", exact: true }).waitFor({ timeout: 60_000 });
      await chat().locator("article.message.assistant", { hasText: "Here are the" }).waitFor({ timeout: 60_000 });
      await box().press("Escape");
      await chat().getByRole("button", { name: "Stop", exact: true }).waitFor({ state: "detached", timeout: 60_000 });
      const id = sessionIds(workspace, "ask")[0]!;
      await fileMatches(
        sessionPaths(workspace, "ask", id).active,
        /"turn\/end".*"cancelled"|"cancelled".*"turn\/end"/,
        60_000,
      );
    });

    for (const width of [300, 250]) {
      await step(`06 at ${width} px the composer is one line and no word breaks`, async () => {
        await setSidebarWidth(page, width);
        await workbench.screenshot(`06-${width}px`);
        const facts = await layoutFacts(chat());
        assert.ok(facts.bar.length >= 4, JSON.stringify(facts.bar));
        const lastTop = Math.max(...facts.bar.map((b) => b.top));
        const firstBottom = Math.min(...facts.bar.map((b) => b.bottom));
        assert.ok(lastTop < firstBottom, `the composer bar wraps at ${width} px: ${JSON.stringify(facts.bar)}`);
        assert.deepEqual(facts.broken, [], `words broken at ${width} px`);
        assert.ok(facts.overflow <= 0, `the chat scrolls sideways by ${facts.overflow} px`);
      });
    }

    await step("07 Open Chat in Editor shows the same conversation in an editor tab", async () => {
      await runPaletteCommand(page, "Downcity: Open Chat in Editor", 60_000);
      // The tab is named after the session it shows ("Downcity: ‹title›", issue 20's rename in every view).
      await page
        .locator(".tabs-container .tab", { hasText: `Downcity: ${ASK_PROMPT.slice(0, 24)}` })
        .first()
        .waitFor({ timeout: 60_000 });
      // Two chats are visible now: the editor's is the one right of the sidebar.
      const sidebarRight = await page.locator(".part.sidebar").evaluate((el) => el.getBoundingClientRect().right);
      const frames = page
        .locator('iframe.webview.ready[src*="extensionId=downcity.downcity-vscode"]')
        .filter({ visible: true });
      await frames.nth(1).waitFor({ timeout: 60_000 });
      let editor: FrameLocator | undefined;
      for (let i = 0; i < (await frames.count()); i++) {
        const left = (await frames.nth(i).boundingBox())?.x ?? 0;
        if (left >= sidebarRight - 1) editor = frames.nth(i).contentFrame().frameLocator("iframe#active-frame");
      }
      assert.ok(editor, "a chat in the editor area");
      await editor.locator("article.message.assistant", { hasText: ASK_ANSWER }).waitFor({ timeout: 60_000 });
      await editor.locator("article.message.user", { hasText: ASK_PROMPT }).waitFor({ timeout: 60_000 });
      await editor
        .getByRole("button", { name: /Session title: Explain the restock rule/ })
        .waitFor({ timeout: 60_000 });
      assert.equal(
        await editor.locator("article.message.user", { hasText: FIRST_PROMPT }).count(),
        0,
        "the open session, not another",
      );
    });

    console.log(`first-ui figures: ${JSON.stringify(figures)}`);
  },
);
