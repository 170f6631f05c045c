// Issue 20 item 2, "in every view of that session … a second window": two code-server
// pages on one folder are two VS Code windows, each with its own extension host. Rename,
// archive and delete are done in window A through the tree's real controls; window B's
// tree follows through its meta.json watcher alone (B's store never hears of them).
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Page } from "playwright-core";
import { PROJECT_ROOT, remoteUri, workbenchUrl } from "../support/workbench/code-server";
import { seedSessions } from "../support/workbench/seed";
import { openDowncityView, sessionRow, sessionRows } from "../support/workbench/workbench";
import { sessionPaths } from "../../core/storage";
import {
  gotoWorkbench,
  chainedSteps,
  fileMatches,
  missingVsCode,
  openWorkbench,
  outputDir,
  withTimeout,
} from "./helpers";

const row = (page: Page, title: string | RegExp) => sessionRow(page, title);
const group = (page: Page, label: RegExp) =>
  page.locator('.monaco-list-row[role="treeitem"]', { hasText: label }).first();

async function contextMenu(page: Page, title: string | RegExp, label: string): Promise<void> {
  await row(page, title).click({ button: "right", timeout: 15_000 });
  const item = page.locator(".context-view .monaco-menu .action-item", { hasText: label }).first();
  await item.hover({ timeout: 15_000 });
  await page
    .locator(".context-view .monaco-menu .action-item.focused", { hasText: label })
    .waitFor({ timeout: 15_000 });
  await page.keyboard.press("Enter");
  await page.locator(".context-view .monaco-menu").waitFor({ state: "hidden", timeout: 15_000 });
}

/** Until `check` holds, polled between DOM reads (never a fixed sleep); bounded by withTimeout. */
async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  await withTimeout(
    (async () => {
      while (!(await check())) await new Promise((resolve) => setImmediate(resolve));
    })(),
    ms,
    what,
  );
}

test(
  "rename, archive and delete in one window show in another window's Sessions tree on the same folder",
  { skip: missingVsCode(), timeout: 300_000 },
  async (t) => {
    const out = outputDir("replay2-two-windows-ui");
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    await seedSessions(workspace, [
      { id: "named", title: "Rename me", turns: ["First question", "First answer."] },
      { id: "shelved", title: "Shelve me", turns: ["Second question", "Second answer."] },
      { id: "doomed", title: "Remove me", turns: ["Third question", "Third answer."] },
    ]);
    const workbench = await openWorkbench(out, {
      settings: { "workbench.tree.enableStickyScroll": false },
    });
    t.after(() => workbench.close());
    const { server, browser } = workbench;
    // Both windows load the extension from this checkout's dist/ (npm run build first).
    const url = workbenchUrl(server, workspace, [["extensionDevelopmentPath", remoteUri(server, PROJECT_ROOT)]]);
    const a = workbench.page;
    const b = await browser.newPage();
    const shot = async (name: string) => {
      await a.screenshot({ path: join(out, `${name}-window-a.png`) }).catch(() => {});
      await b.screenshot({ path: join(out, `${name}-window-b.png`) }).catch(() => {});
    };
    const step = chainedSteps(t, { ...workbench, screenshot: async (name) => (await shot(name), "") });

    await step("01 two windows on one folder, each with its Sessions tree", async () => {
      for (const page of [a, b]) {
        await gotoWorkbench(page, url);
        await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 90_000 });
        await openDowncityView(page);
        for (const title of ["Rename me", "Shelve me", "Remove me"])
          await row(page, title).waitFor({ timeout: 60_000 });
      }
    });

    await step("02 rename in window A: window B's row takes the new title", async () => {
      await contextMenu(a, "Rename me", "Rename Session…");
      const input = a.locator(".quick-input-widget input");
      await input.waitFor({ state: "visible", timeout: 15_000 });
      await input.fill("Renamed elsewhere");
      await a.keyboard.press("Enter");
      await fileMatches(sessionPaths(workspace, "default", "named").meta, /Renamed elsewhere/, 15_000);
      await row(b, "Renamed elsewhere").waitFor({ timeout: 30_000 });
      await until(async () => (await sessionRows(b, "Rename me").count()) === 0, 15_000, "B's old title to go");
    });

    await step("03 archive in window A: window B moves the row under Archived", async () => {
      const target = row(a, "Shelve me");
      await target.hover({ timeout: 15_000 });
      await target.locator('.action-label[aria-label="Archive Session"]').click({ timeout: 15_000 });
      await until(
        async () => existsSync(sessionPaths(workspace, "default", "shelved", "archived").meta),
        15_000,
        "the session to move to archived/",
      );
      await group(b, /^Archived/).waitFor({ timeout: 30_000 });
      await until(async () => (await sessionRows(b, "Shelve me").count()) === 0, 15_000, "B's live row to go");
      await group(b, /^Archived/).click({ timeout: 15_000 });
      await row(b, "Shelve me").waitFor({ timeout: 15_000 });
      const icon = row(b, "Shelve me").locator(".custom-view-tree-node-item-icon.codicon-archive");
      await icon.waitFor({ timeout: 15_000 });
    });

    await step("04 delete in window A: window B's row goes", async () => {
      await contextMenu(a, "Remove me", "Delete Session…");
      await a
        .locator(".monaco-dialog-box", { hasText: 'Delete "Remove me"?' })
        .getByRole("button", { name: "Delete" })
        .click({ timeout: 15_000 });
      await until(
        async () => !existsSync(sessionPaths(workspace, "default", "doomed").dir),
        15_000,
        "the folder to go",
      );
      await until(async () => (await sessionRows(b, "Remove me").count()) === 0, 30_000, "B's row to go");
      // B still shows the others as they are now.
      await row(b, "Renamed elsewhere").waitFor({ timeout: 15_000 });
      assert.match(readFileSync(sessionPaths(workspace, "default", "named").meta, "utf8"), /Renamed elsewhere/);
    });
  },
);
