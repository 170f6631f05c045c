// Issue 21 in the real workbench: dist/downcity.vsix in code-server, a workspace holding
// one intact session whose meta.json is a symbolic link (to a file outside the workspace)
// and one stray folder. The session opens in the chat and continues against the loopback
// provider; the stray folder shows only under "Damaged", and is deleted from there.
// A screenshot per step lands in test/.tmp/e2e/store-ui/.
import { strict as assert } from "node:assert";
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { seedSessions } from "../support/workbench/seed";
import {
  chatFrame,
  openDowncityView,
  scrolledSessionRow,
  sessionRow,
  sessionRows,
} from "../support/workbench/workbench";
import { sessionPaths } from "../../core/storage";
import { startProviderServer, wire } from "../support/provider-server";
import {
  gotoWorkbench,
  chainedSteps,
  contextMenuUntil,
  fileMatches,
  missingVsCode,
  openWorkbench,
  outputDir,
  installPackagedVsix,
} from "./helpers";

const TITLE = "Session with a linked meta";
const ANSWER = "Still here after the repair.";

test(
  "store: an intact session with a linked meta.json opens and continues; a stray folder shows only under Damaged",
  { skip: missingVsCode(), timeout: 300_000 },
  async (t) => {
    const out = outputDir("store-ui");
    await installPackagedVsix(out);

    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    await seedSessions(workspace, [
      { id: "store-linked", title: TITLE, turns: ["What does src/inventory.ts do?", "It tracks stock levels."] },
    ]);
    const paths = sessionPaths(workspace, "default", "store-linked");
    const outside = join(out, "outside");
    mkdirSync(outside);
    const victim = join(outside, "meta.json");
    writeFileSync(victim, '{"not":"yours"}');
    rmSync(paths.meta);
    symlinkSync(victim, paths.meta);
    const area = dirname(paths.dir);
    const ghost = join(area, "ghost");
    mkdirSync(join(ghost, "messages"), { recursive: true });
    const logBefore = readFileSync(paths.active);

    const provider = await startProviderServer(({ path }) =>
      path.endsWith("/models")
        ? { json: { object: "list", data: [{ id: "e2e-model" }] } }
        : { sse: wire.openaiChat({ text: ANSWER }) },
    );
    t.after(() => provider.close());
    const workbench = await openWorkbench(out, {
      env: { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: provider.baseURL, DOWNCITY_MODEL: "e2e-model" },
    });
    t.after(() => workbench.close());
    const { page } = workbench;
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    const step = chainedSteps(t, workbench);
    const rowLevel = (row: ReturnType<typeof sessionRow>) =>
      row.getAttribute("aria-level", { timeout: 15_000 }).then(Number);

    await step(
      "01 the tree lists the intact session as itself, and a collapsed Damaged group at the bottom",
      async () => {
        await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
        await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
        await openDowncityView(page);
        await sessionRow(page, TITLE).waitFor({ timeout: 30_000 });
        const group = page
          .locator('.monaco-list-row[role="treeitem"][aria-expanded="false"]', { hasText: /^Damaged/ })
          .first();
        await group.waitFor({ timeout: 15_000 });
        // The group is the tree's last row, and nothing named ghost is shown while it is collapsed.
        const labels = await page
          .locator('.pane-body .monaco-list-row[role="treeitem"]')
          .filter({ visible: true })
          .allInnerTexts();
        const tree = labels.filter((l) => l.includes(TITLE) || /^Damaged/.test(l));
        assert.match(tree.at(-1) ?? "", /^Damaged/, `rows: ${JSON.stringify(labels)}`);
        assert.equal(await sessionRows(page, /^ghost/).count(), 0, "the stray folder is not a session row");
      },
    );

    await step("02 expanding Damaged shows the stray folder with its reason, one level under the group", async () => {
      const group = page.locator('.monaco-list-row[role="treeitem"]', { hasText: /^Damaged/ }).first();
      await group.click({ timeout: 15_000 });
      const row = sessionRow(page, /^ghost/);
      await row.waitFor({ timeout: 15_000 });
      assert.match(await row.innerText(), /it holds no event log/);
      assert.equal(await rowLevel(row), (await rowLevel(group)) + 1);
      assert.equal(await sessionRows(page, /ghost/).count(), 1, "shown once, only under Damaged");
    });

    await step("03 clicking the session opens it in the chat: the link was moved aside, never followed", async () => {
      await sessionRow(page, TITLE).click({ timeout: 15_000 });
      await chatFrame(page)
        .locator("article.message.assistant", { hasText: "It tracks stock levels." })
        .first()
        .waitFor({ timeout: 30_000 });
      await fileMatches(paths.meta, /"sessionId": "store-linked"/, 15_000);
      assert.ok(lstatSync(paths.meta).isFile(), "meta.json is rebuilt as a file");
      const asides = readdirSync(paths.dir).filter((n) => n.startsWith("meta.json.corrupt-"));
      assert.equal(asides.length, 1, readdirSync(paths.dir).join(", "));
      assert.ok(lstatSync(join(paths.dir, asides[0]!)).isSymbolicLink(), "the link itself was moved aside");
      assert.equal(readFileSync(victim, "utf8"), '{"not":"yours"}', "its target was never written");
    });

    await step(
      "04 the session continues: a prompt is answered by the loopback provider and lands on disk",
      async () => {
        const chat = chatFrame(page);
        await chat
          .getByRole("textbox", { name: "Message", exact: true })
          .fill("Are you still there?", { timeout: 30_000 });
        await chat.getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
        await chat
          .locator('article.message.assistant[aria-label="Assistant"]', { hasText: ANSWER })
          .first()
          .waitFor({ timeout: 30_000 });
        await fileMatches(paths.active, new RegExp(ANSWER.replace(/\./g, "\\.")), 15_000);
        assert.ok(
          readFileSync(paths.active).subarray(0, logBefore.length).equals(logBefore),
          "the history before is intact",
        );
        assert.match(readFileSync(paths.active, "utf8"), /Are you still there\?/);
      },
    );

    await step(
      "05 Delete from the Damaged row's context menu asks in a modal, then removes the folder and the row",
      async () => {
        await contextMenuUntil(page, () => scrolledSessionRow(page, /^ghost/), "Delete Session…");
        const dialog = page.locator(".monaco-dialog-box", { hasText: 'Delete the damaged folder "ghost"?' });
        await dialog.getByRole("button", { name: "Delete" }).click({ timeout: 15_000 });
        await sessionRow(page, /^ghost/).waitFor({ state: "detached", timeout: 15_000 });
        await page
          .locator('.monaco-list-row[role="treeitem"]', { hasText: /^Damaged/ })
          .first()
          .waitFor({ state: "detached", timeout: 15_000 });
        assert.ok(!existsSync(ghost), "the stray folder is gone from disk");
        assert.ok(existsSync(paths.active), "the session is untouched");
        await sessionRow(page, TITLE).waitFor({ timeout: 15_000 });
      },
    );
  },
);
