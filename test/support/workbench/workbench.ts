// Selectors that drive the real workbench in Chromium, shared by the UI tests and the
// Marketplace screenshots: the command palette, the Sessions tree and the chat webview.
import type { FrameLocator, Locator, Page } from "playwright-core";

const EXTENSION_ID = "downcity.downcity-vscode";

/** Opens the command palette on `title` and returns its row (the list filters as it is typed). */
export async function paletteRow(page: Page, title: string, timeout = 15_000) {
  // Keys reach the workbench only once it has focus: click an empty part of the editor area.
  await page.locator(".monaco-workbench .part.editor").click({ position: { x: 400, y: 300 } });
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: 10_000 });
  await input.fill(`>${title}`);
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).filter({ visible: true }).first();
  await row.waitFor({ timeout });
  return row;
}

/** Runs a palette command by its full title ("Downcity: Fork Session…"). */
export async function runCommand(page: Page, title: string): Promise<void> {
  await (await paletteRow(page, title)).click();
}

/**
 * The row of the open quick pick whose text contains `text`. Only visible rows: the
 * workbench keeps an earlier pick's rows in the DOM, hidden, and they must never match.
 */
export const quickPickRow = (page: Page, text: string | RegExp) =>
  page
    .locator(".quick-input-widget .quick-input-list .monaco-list-row", { hasText: text })
    .filter({ visible: true })
    .first();

/** Rows of the Sessions tree (or any tree) with `title`. */
export const sessionRows = (page: Page, title: string | RegExp) =>
  page.locator('.monaco-list-row[role="treeitem"]', { hasText: title });

export const sessionRow = (page: Page, title: string | RegExp) => sessionRows(page, title).first();

/**
 * The Sessions row with `title`, wheeled to: the tree is virtualised, so a row outside the
 * view is not in the DOM until the tree is scrolled that far (the Sessions view starts
 * small). The wheel turns over the middle of the Sessions pane's body, never over a row
 * (the last row in the DOM may be under the status bar, and hovering it times out), a
 * bounded number of times until the row is in the DOM and wholly inside the pane.
 */
export async function scrolledSessionRow(
  page: Page,
  title: string | RegExp,
  direction: 1 | -1 = 1,
  steps = 40,
): Promise<Locator> {
  const row = sessionRow(page, title);
  const body = page
    .locator(".pane", { has: page.locator(".pane-header", { hasText: /^sessions/i }) })
    .locator(".pane-body")
    .first();
  // A row at the pane's edge is in the DOM but covered by its neighbour: wholly inside, or keep wheeling.
  const inside = async () => {
    if ((await row.count()) === 0) return false;
    const [r, b] = [await row.boundingBox(), await body.boundingBox()];
    return !!r && !!b && r.y >= b.y && r.y + r.height <= b.y + b.height;
  };
  for (let i = 0; i < steps && !(await inside()); i++) {
    const box = await body.boundingBox();
    if (!box) throw new Error("the Sessions pane is not open");
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 110 * direction);
    await row.waitFor({ state: "attached", timeout: 250 }).catch(() => undefined);
  }
  return row;
}

/**
 * The document inside the chat's webview (outer iframe, then VS Code's active-frame): the
 * visible Downcity webview. Not matched by `purpose=webviewView`: the iframe VS Code makes
 * when the view comes back after its container was hidden has no purpose in its src. So a
 * caller must not have a chat open in an editor too.
 */
export function chatFrame(page: Page): FrameLocator {
  return chatFrameElement(page).contentFrame().frameLocator("iframe#active-frame");
}

/** The visible Downcity webview's outer frame (VS Code rebuilds it, untagged, when the view is shown again). */
export function chatFrameElement(page: Page): Locator {
  return page.locator(`iframe.webview.ready[src*="extensionId=${EXTENSION_ID}"]`).filter({ visible: true }).first();
}

/**
 * Opens the Downcity view container from the activity bar. Its icon toggles: a window whose
 * restored layout (the user data another window of the test wrote) already shows the container
 * closes it on a click, so the click is made only while the Sessions pane is not shown, and
 * again (at most three times) when a late restore turned it into a close.
 */
export async function openDowncityView(page: Page): Promise<void> {
  const icon = page.locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]');
  const header = page.locator(".pane-header", { hasText: /sessions/i }).first();
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await header.isVisible()) return;
    await icon.click({ timeout: 30_000 });
    if (
      await header.waitFor({ timeout: 15_000 }).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  await header.waitFor({ timeout: 15_000 });
}
