// Issue 23's UI test: dist/downcity.vsix in code-server on a copy of the sample workspace
// with a session whose early turns were compacted into a closed segment. "Downcity: Search
// Sessions…" finds a word that exists only there; picking the result opens the session in
// the chat with that message paged in, scrolled to and highlighted. Then the chat's own
// find bar (Ctrl+F) and its "search this whole session", and the Sessions view's search
// icon. A screenshot per step lands in test/.tmp/e2e/search-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame, openDowncityView, quickPickRow, runCommand } from "../support/workbench/workbench";
import { sessionPaths, Sessions } from "../../core/storage";
import {
  gotoWorkbench,
  chainedSteps,
  filesUnder,
  missingVsCode,
  openWorkbench,
  outputDir,
  installPackagedVsix,
} from "./helpers";

/** Said once, early, then compacted away: only the closed segment holds it. */
const WORD = "axolotl";
const OLD_ANSWER = `The ${WORD} keeps its gills all its life; the inventory module names it SKU-77.`;
const TITLE = "Amphibians in stock";

/** A session of 24 messages: the first 16 closed into a segment (with WORD in message 6), 8 in Active. */
async function seedCompacted(root: string): Promise<void> {
  const sessions = new Sessions({ root });
  const session = sessions.create({ id: "search-compacted" });
  const say = (i: number, text: string) =>
    i % 2 === 0
      ? session.append("user/message", { content: [{ type: "text", text }] }, { surface: "append" })
      : session.append("assistant/message", { content: [{ type: "text", text }] }, { surface: "append" });
  for (let i = 0; i < 16; i++)
    say(
      i,
      i === 5 ? OLD_ANSWER : i % 2 === 0 ? `Question ${i} about stock levels.` : `Answer ${i}: the stock is fine.`,
    );
  session.append("session/title", { title: TITLE, messageSeqs: [1], source: { kind: "user" } });
  await sessions.flush(session);
  await sessions.closePrefix(session, session.lastSeq, "Earlier: questions about stock levels and one amphibian.");
  for (let i = 16; i < 24; i++) say(i, i % 2 === 0 ? `Later question ${i}.` : `Later answer ${i}.`);
  await sessions.flush(session);
  await sessions.close();
}

test(
  "Search Sessions… finds a word only in a compacted segment and opens that message highlighted",
  { skip: missingVsCode(), timeout: 300_000 },
  async (t) => {
    const out = outputDir("search-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    await seedCompacted(workspace);
    const paths = sessionPaths(workspace, "default", "search-compacted");
    // The premise: the word is in a closed segment and not in Active.
    assert.equal(readdirSync(paths.segments).length, 1);
    assert.doesNotMatch(readFileSync(paths.active, "utf8"), new RegExp(WORD));
    const seeded = filesUnder(join(workspace, ".downcity"));

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

    await step("01 the workbench opens with the Downcity view", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncityView(page);
      await page.locator('.monaco-list-row[role="treeitem"]', { hasText: TITLE }).first().waitFor({ timeout: 30_000 });
    });

    await step("02 Search Sessions… from the palette shows the compacted match, highlighted and marked", async () => {
      await runCommand(page, "Downcity: Search Sessions…");
      const input = page.locator(".quick-input-widget input");
      await input.waitFor({ timeout: 15_000 });
      await input.fill(WORD);
      const row = quickPickRow(page, "gills");
      await row.waitFor({ timeout: 30_000 });
      const text = (await row.textContent()) ?? "";
      assert.match(text, new RegExp(TITLE));
      assert.match(text, /only in closed history/);
      assert.match(text, /default · sample-workspace/);
      // The picker highlights the typed word in the snippet.
      assert.deepEqual(
        (await row.locator(".highlight").allTextContents()).map((s) => s.toLowerCase()),
        [WORD],
      );
    });

    await step(
      "03 picking the result opens the session with that message paged in, scrolled to and highlighted",
      async () => {
        await quickPickRow(page, "gills").click({ timeout: 15_000 });
        const revealed = chat().locator(".row.revealed");
        await revealed.waitFor({ timeout: 30_000 });
        assert.match((await revealed.textContent()) ?? "", /keeps its gills all its life/);
        assert.equal(await revealed.getAttribute("aria-current"), "true");
        // The segment was paged in above the Active page: the view shows from event 1.
        await chat()
          .locator(".history-bar")
          .getByText(/Start of session|Showing events 1–/)
          .first()
          .waitFor({ timeout: 15_000 });
        const visible = await revealed.evaluate((el) => {
          const box = document.querySelector(".log-scroller")!.getBoundingClientRect();
          const r = el.getBoundingClientRect();
          return r.bottom > box.top && r.top < box.bottom;
        });
        assert.ok(visible, "the revealed message is inside the chat's visible area");
        const marked = await revealed.evaluate(() => {
          const h = (CSS as any).highlights.get("downcity-find");
          return h ? [...h].map((r: Range) => r.toString()) : [];
        });
        assert.deepEqual(marked, [WORD], "the word is marked in the revealed message");
      },
    );

    await step(
      "04 Ctrl+F in the chat: the find bar, and Search this whole session lists the compacted match",
      async () => {
        await chat()
          .getByRole("log")
          .click({ position: { x: 20, y: 20 } });
        await page.keyboard.press("Control+f");
        const find = chat().getByRole("textbox", { name: "Find" });
        await find.waitFor({ timeout: 15_000 });
        await find.fill("Later answer");
        await chat().locator(".find-count").getByText("4 of 4").waitFor({ timeout: 15_000 });
        await chat().getByRole("button", { name: "Previous match" }).click();
        await chat().locator(".find-count").getByText("3 of 4").waitFor({ timeout: 15_000 });
        await find.fill("SKU-77");
        await chat().getByRole("button", { name: "Search this whole session" }).click();
        const hits = chat().getByRole("list", { name: "Matches in this session" });
        await hits.getByText("gills").waitFor({ timeout: 15_000 });
        assert.equal(await hits.locator("mark").first().textContent(), "SKU-77");
        await workbench.screenshot("04a-find-bar-with-whole-session-matches");
        await find.press("Escape");
        await find.waitFor({ state: "detached", timeout: 15_000 });
      },
    );

    await step("05 the Sessions view's search icon opens the same picker", async () => {
      const header = page.locator(".pane-header", { hasText: /sessions/i }).first();
      await header.hover();
      await header.locator('.action-label[aria-label="Search Sessions…"]').click({ timeout: 15_000 });
      const input = page.locator(".quick-input-widget input");
      await input.waitFor({ timeout: 15_000 });
      await input.fill("Later question 22");
      await quickPickRow(page, "Later question 22").waitFor({ timeout: 30_000 });
      await page.keyboard.press("Escape");
      // Derived data stays out of the workspace: the index is in the extension's storageUri,
      // and under .downcity/ only the session's own files (opening it wrote its lock and meta) are new.
      const added = filesUnder(join(workspace, ".downcity")).filter((f) => !seeded.includes(f));
      assert.deepEqual(
        added.map((f) => basename(f)).filter((n) => n !== "writer.lock" && n !== "meta.json"),
        [],
      );
      const storage = join(out, "run", "user-data", "User", "workspaceStorage");
      const index = readdirSync(storage)
        .map((d) => join(storage, d, "downcity.downcity-vscode", "search"))
        .find((d) => existsSync(d));
      assert.ok(
        index && filesUnder(index).length > 0,
        `a search index under ${storage}/*/downcity.downcity-vscode/search`,
      );
    });
  },
);
