// Issue 23's remaining UI items in the real workbench (code-server with dist/downcity.vsix):
// hostile snippets and titles are inert in the Search Sessions QuickPick and in the chat,
// a row shows its time, the picker's regex toggle, and the chat find bar's Next match.
// A screenshot per step lands in test/.tmp/e2e/search2-hostile-ui/.
import { strict as assert } from "node:assert";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame, openDowncityView, quickPickRow, runCommand } from "../support/workbench/workbench";
import { Sessions } from "../../core/storage";
import { gotoWorkbench, chainedSteps, missingVsCode, openWorkbench, outputDir, installPackagedVsix } from "./helpers";

/** Model output that would run script, load an image, render an icon or a link if it were markup. */
const HOSTILE = `quokka <img src="http://127.0.0.1:1/x" onerror="window.__pwned = 1"> $(alert) **zebra** [link](javascript:alert(1))`;
const TITLE = "$(zap) <b>Bold</b> quokka notes";

async function seed(root: string): Promise<void> {
  const sessions = new Sessions({ root });
  const s = sessions.create({ id: "hostile" });
  s.append("user/message", { content: [{ type: "text", text: "first quokka question" }] }, { surface: "append" });
  s.append("assistant/message", { content: [{ type: "text", text: HOSTILE }] }, { surface: "append" });
  s.append("user/message", { content: [{ type: "text", text: "a second quokka question" }] }, { surface: "append" });
  s.append("assistant/message", { content: [{ type: "text", text: "The numbat is another." }] }, { surface: "append" });
  s.append("session/title", { title: TITLE, messageSeqs: [1], source: { kind: "user" } });
  await sessions.close();
}

test(
  "Search Sessions…: hostile snippets and titles stay text in the picker and the chat; time, regex toggle, Next match",
  { skip: missingVsCode(), timeout: 300_000 },
  async (t) => {
    const out = outputDir("search2-hostile-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    await seed(workspace);

    const workbench = await openWorkbench(out, {
      env: {
        DOWNCITY_PROTOCOL: "openai-chat",
        DOWNCITY_BASE_URL: "http://127.0.0.1:9/v1",
        DOWNCITY_MODEL: "e2e-model",
      },
    });
    t.after(() => workbench.close());
    const { page } = workbench;
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    const chat = () => chatFrame(page);
    const step = chainedSteps(t, workbench);
    const input = page.locator(".quick-input-widget input");

    await step("01 the workbench opens with the Downcity view", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncityView(page);
      await page
        .locator('.monaco-list-row[role="treeitem"]', { hasText: "quokka notes" })
        .first()
        .waitFor({ timeout: 30_000 });
    });

    await step(
      "02 the picker shows the hostile snippet and title as typed text, with agent, folder and time",
      async () => {
        await runCommand(page, "Downcity: Search Sessions…");
        await input.waitFor({ timeout: 15_000 });
        await input.fill("quokka");
        const row = quickPickRow(page, "zebra");
        await row.waitFor({ timeout: 30_000 });
        const text = (await row.textContent()) ?? "";
        assert.ok(text.includes('<img src="http://127.0.0.1:1/x" onerror='), text);
        assert.ok(text.includes("$(alert) **zebra** [link](javascript:alert(1))"), text);
        assert.ok(text.includes("$(zap) <b>Bold</b> quokka notes"), text);
        // The time, relative to now: seeded a moment before the workbench opened (a minute or two under load).
        assert.match(text, /default · sample-workspace · (just now|\d+ min ago)/);
        // No icon, element or link was made of them: the row's own kind icon is the only codicon.
        const widget = page.locator(".quick-input-widget");
        assert.equal(await widget.locator(".codicon-alert, .codicon-zap").count(), 0);
        assert.equal(await widget.locator("img, b, a[href^='javascript']").count(), 0);
        assert.ok((await row.locator(".highlight").allTextContents()).some((s) => s.toLowerCase() === "quokka"));
      },
    );

    await step("03 the regex toggle: a pattern finds the numbat answer, then off again", async () => {
      const toggle = page.locator('.quick-input-widget .action-label[aria-label^="Use Regular Expression"]');
      // The input's hover (its placeholder) covers the toggles while the pointer rests on it.
      const unhover = async () => {
        await page.mouse.move(700, 700);
        await page.locator(".context-view .hover-contents").waitFor({ state: "hidden", timeout: 15_000 });
      };
      await unhover();
      await toggle.click({ timeout: 15_000 });
      await page
        .locator('.quick-input-widget .action-label[aria-label="Use Regular Expression (on)"]')
        .waitFor({ timeout: 15_000 });
      await input.fill("num.at is");
      await quickPickRow(page, "numbat is another").waitFor({ timeout: 30_000 });
      await unhover();
      await toggle.click({ timeout: 15_000 });
      await page
        .locator('.quick-input-widget .action-label[aria-label="Use Regular Expression (off)"]')
        .waitFor({ timeout: 15_000 });
      await input.fill("quokka");
      await quickPickRow(page, "zebra").waitFor({ timeout: 30_000 });
    });

    await step("04 picking it opens the message in the chat, highlighted, as text: no image, no script", async () => {
      await quickPickRow(page, "zebra").click({ timeout: 15_000 });
      const revealed = chat().locator(".row.revealed");
      await revealed.waitFor({ timeout: 30_000 });
      const text = (await revealed.textContent()) ?? "";
      assert.ok(text.includes('<img src="http://127.0.0.1:1/x"'), text);
      assert.ok(text.includes("$(alert)"), text);
      assert.equal(await chat().locator('img[src^="http://127.0.0.1:1"], a[href^="javascript"]').count(), 0);
      assert.equal(await revealed.evaluate(() => (window as { __pwned?: number }).__pwned), undefined);
    });

    await step("05 the find bar: Next and Previous match step through the loaded messages, wrapping", async () => {
      await chat()
        .getByRole("log")
        .click({ position: { x: 20, y: 20 } });
      await page.keyboard.press("Control+f");
      const find = chat().getByRole("textbox", { name: "Find" });
      await find.waitFor({ timeout: 15_000 });
      await find.fill("quokka");
      const count = chat().locator(".find-count");
      await count.getByText(/^\d+ of \d+$/).waitFor({ timeout: 15_000 });
      const [first, total] = /^(\d+) of (\d+)$/
        .exec((await count.textContent()) ?? "")!
        .slice(1)
        .map(Number) as [number, number];
      // The three loaded messages that say it (the title is no message).
      assert.equal(total, 3);
      await chat().getByRole("button", { name: "Next match" }).click();
      await count.getByText(`${(first % total) + 1} of ${total}`).waitFor({ timeout: 15_000 });
      await chat().getByRole("button", { name: "Previous match" }).click();
      await count.getByText(`${first} of ${total}`).waitFor({ timeout: 15_000 });
      await chat().getByRole("button", { name: "Search this whole session" }).click();
      const hits = chat().getByRole("list", { name: "Matches in this session" });
      await hits.getByText("onerror", { exact: false }).first().waitFor({ timeout: 15_000 });
      assert.equal(await hits.locator("img, a[href^='javascript']").count(), 0);
      assert.equal((await hits.locator("mark").first().textContent())?.toLowerCase(), "quokka");
      await workbench.screenshot("05a-find-bar-and-whole-session-matches");
      await find.press("Escape");
    });
  },
);
