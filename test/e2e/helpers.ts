// Shared by the real-VS-Code tests: an output folder per test file under test/.tmp/e2e/,
// code-server + Chromium started together and stopped in reverse (test/support/workbench/open-workbench.ts),
// bounded waits, and failure artefacts (screenshot, logs) left in the output folder.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, watch, type FSWatcher } from "node:fs";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import type { FrameLocator, Locator, Page } from "playwright-core";
import { chatFrame } from "../support/workbench/workbench";
import { installVsix, PROJECT_ROOT } from "../support/workbench/code-server";
import { openWorkbench, type Workbench } from "../support/workbench/open-workbench";
import { screenDump } from "./screen-dump";

export const E2E_OUT = join(PROJECT_ROOT, "test", ".tmp", "e2e");

/**
 * Packages dist/ as dist/downcity.vsix (scripts/package-vsix.ts) and installs it into the extensions folder of
 * `out`/run, where openWorkbench(out) starts code-server: the extension as a user has it.
 */
export async function installPackagedVsix(out: string): Promise<void> {
  execFileSync(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "scripts", "package-vsix.ts")], {
    cwd: PROJECT_ROOT,
    stdio: "ignore",
  });
  await installVsix(join(out, "run"), join(PROJECT_ROOT, "dist", "downcity.vsix"));
}

/** A fresh output folder for one test file: test/.tmp/e2e/<name>/ (the previous run's is replaced). */
export function outputDir(name: string): string {
  const dir = join(E2E_OUT, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

import { withTimeout } from "../support/with-timeout";
export { withTimeout };
export {
  extensionHostPid,
  gotoWorkbench,
  missingVsCode,
  openWorkbench,
  type Workbench,
} from "../support/workbench/open-workbench";

/**
 * Calls `onChange` on every change in `dir`, or (while it does not exist yet) in its nearest existing ancestor, moving
 * down as the folders appear: a session's folders are created only when its write-behind queue first flushes
 * (DESIGN: lazy materialisation, 200 ms batches), which under load comes after the answer shows (CI, stop 35:
 * `watch` on a `messages/` folder not created yet threw ENOENT). Returns the closer.
 */
function watchNearest(dir: string, onChange: () => void): () => void {
  let watcher: FSWatcher | undefined;
  let watched = "";
  let closed = false;
  const retarget = () => {
    if (closed) return;
    let target = dir;
    while (!existsSync(target) && dirname(target) !== target) target = dirname(target);
    if (target !== watched) {
      watcher?.close();
      watched = target;
      try {
        watcher = watch(target, () => {
          retarget();
          onChange();
        });
      } catch {
        // Removed between the check and the watch: look again from further up.
        watched = "";
        return retarget();
      }
    }
  };
  retarget();
  return () => {
    closed = true;
    watcher?.close();
  };
}

/** Resolves once `file` matches, re-read on every change in its folder; rejects after `ms`. */
export function fileMatches(file: string, pattern: RegExp, ms: number): Promise<void> {
  const matches = () => existsSync(file) && pattern.test(readFileSync(file, "utf8"));
  return new Promise((ok, fail) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      close();
      if (error) fail(error);
      else ok();
    };
    const timer = setTimeout(() => done(new Error(`${file} did not match ${pattern} within ${ms} ms`)), ms);
    const close = watchNearest(dirname(file), () => matches() && done());
    if (matches()) done();
  });
}

/**
 * The files under `dir` (recursively) now. The store writes through temp files it renames, so an entry listed can be
 * gone when it is looked at: it is left out (connect-ui, a 17-run loop: statSync threw ENOENT on a `.tmp-` file).
 */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile());
}

/** Which of `files` hold any of `secrets`; a file gone when read holds none. */
export function filesHolding(files: string[], secrets: string[]): string[] {
  const contents = (file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return Buffer.alloc(0);
      throw error;
    }
  };
  return files.filter((file) => secrets.some((secret) => contents(file).includes(secret)));
}

/** A session log's events; a last line still being appended (no parse yet) is left for the next read. */
function logEvents(file: string): { type: string; data: any }[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { type: string; data: any }];
      } catch {
        return [];
      }
    });
}

/**
 * Resolves once the log of the `code` agent's session whose first message holds `prompt` satisfies `check`, re-read
 * on every change under the workspace's `.downcity/` (the store writes behind, so the log follows the screen); rejects
 * after `ms`.
 */
export function logMatching(
  workspace: string,
  prompt: string,
  check: (events: { type: string; data: any }[]) => boolean,
  ms = 30_000,
): Promise<void> {
  const dir = join(workspace, ".downcity", "agents", "code", "sessions");
  const satisfied = () => {
    for (const id of existsSync(dir) ? readdirSync(dir) : []) {
      const file = join(dir, id, "messages", "active.jsonl");
      if (!existsSync(file)) continue;
      const events = logEvents(file);
      if (events.some((e) => e.type === "user/message" && JSON.stringify(e.data.content).includes(prompt)))
        return check(events);
    }
    return false;
  };
  let watcher: FSWatcher | undefined;
  return withTimeout(
    new Promise<void>((resolve) => {
      watcher = watch(join(workspace, ".downcity"), { recursive: true }, () => satisfied() && resolve());
      if (satisfied()) resolve();
    }),
    ms,
    `the log of "${prompt}" to match`,
  ).finally(() => watcher?.close());
}

/** The entries of `dir` once it holds at least `count`, re-read on every change (see watchNearest); rejects after `ms`. */
export function dirHolds(dir: string, count: number, ms: number): Promise<string[]> {
  const entries = () => (existsSync(dir) ? readdirSync(dir) : []);
  return new Promise((ok, fail) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      close();
      if (error) fail(error);
      else ok(entries());
    };
    const timer = setTimeout(
      () => done(new Error(`${dir} did not hold ${count} entries within ${ms} ms: ${entries().join(", ")}`)),
      ms,
    );
    const close = watchNearest(dir, () => entries().length >= count && done());
    if (entries().length >= count) done();
  });
}

/** Runs a command by its palette title (F1, type, Enter): unlike a toggle, the same result whatever is open. */
export async function runPaletteCommand(page: Page, title: string, timeout = 15_000): Promise<void> {
  const input = page.locator(".quick-input-widget input");
  // Enter runs the focused row: under load the list filters after the text is in, and a row
  // that merely shows the title while another is focused ran that other command
  // (approve-ui, a 20-run loop: the notification centre never opened).
  const row = page.locator(".quick-input-list .monaco-list-row.focused", { hasText: title }).filter({ visible: true });
  // A webview that takes focus as it loads (a chat just opened in an editor) swallows F1, or
  // closes the palette before its row is focused: then focus is handed back to the workbench
  // and the palette opened again, at most PALETTE_TRIES times (context-ui step 09: in CI F1
  // never opened the palette in 30 s; in a loop at load 29 it closed after the text was in).
  for (let attempt = 1; ; attempt++) {
    const last = attempt >= PALETTE_TRIES;
    if (attempt === 1) {
      // Keys reach the workbench only once it has focus: click an empty part of the editor area.
      await page.locator(".monaco-workbench .part.editor").click({ position: { x: 400, y: 300 }, timeout });
    } else {
      // A palette still open keeps the list it was opened with: one opened before the extension's
      // contributions were registered never lists its commands (command-first-ui, a 20-run loop:
      // F1 pressed as the window showed). Close it, so that F1 opens one listing what is there now.
      if (await input.first().isVisible()) await page.keyboard.press("Escape");
      // The click may have landed on a webview's iframe, which keeps keys: blur it, so that
      // F1 goes to the workbench's own key handler on the main document.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    }
    await page.keyboard.press("F1");
    const outcome = await paletteOutcome(input, row, title, last ? timeout : Math.min(timeout, 10_000), timeout);
    if (outcome === "ready") break;
    if (last) throw new Error(`the palette did not run "${title}": ${outcome}`);
  }
  await page.keyboard.press("Enter");
}

const PALETTE_TRIES = 3;

/**
 * Runs a palette command until `shown` is on screen, at most 3 times, as a user does when a
 * command did not take: a webview that takes focus between the palette's row and Enter
 * keeps the key (approve-ui step 06 at load 23: the notification centre never opened;
 * context-ui step 09 at load 12: the sidebar still showed Downcity 60 s later).
 */
export async function runPaletteCommandUntil(
  page: Page,
  title: string,
  shown: Locator,
  timeout = 30_000,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await runPaletteCommand(page, title, timeout);
    try {
      await shown.waitFor({ state: "visible", timeout: 20_000 });
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
    }
  }
}

/** Whether the palette, just asked for, ends up open on `title`'s row, or why not. */
async function paletteOutcome(
  input: Locator,
  row: Locator,
  title: string,
  openBound: number,
  timeout: number,
): Promise<"ready" | "it did not open" | "it took no text" | "it closed" | "its row was not focused"> {
  const opened = await input.waitFor({ state: "visible", timeout: openBound }).then(
    () => true,
    () => false,
  );
  if (!opened) return "it did not open";
  // Open, and it stays open unless something takes focus: a closed palette ends the wait at
  // once, a slow one gets the whole bound.
  const fill = (bound: number) =>
    input.fill(`>${title}`, { timeout: bound }).then(
      () => true,
      () => false,
    );
  const typed = (await fill(Math.min(timeout, 5_000))) || ((await input.isVisible()) && (await fill(timeout)));
  if (!typed) return (await input.isVisible()) ? "it took no text" : "it closed";
  return Promise.race([
    row
      .first()
      .waitFor({ timeout })
      .then(
        () => "ready" as const,
        () => "its row was not focused" as const,
      ),
    input.waitFor({ state: "hidden", timeout }).then(
      () => "it closed" as const,
      () => "its row was not focused" as const,
    ),
  ]);
}

/**
 * Steps that build on each other, each a subtest of `t` with a screenshot named after it
 * in the output folder: after a failure the rest are skipped, not timed out. A failed
 * step's error says what was on screen (screenDump): the CI shows the text, not the picture.
 */
export function chainedSteps(t: TestContext, workbench: Workbench) {
  let failed = false;
  return (name: string, body: (w: Workbench) => Promise<void>) =>
    t.test(name, { skip: failed && "an earlier step failed" }, async () => {
      try {
        await body(workbench);
      } catch (error) {
        failed = true;
        throw await described(error, workbench.page);
      } finally {
        await workbench.screenshot(name.replace(/[^a-z0-9]+/gi, "-").toLowerCase());
      }
    });
}

/**
 * `error` with the screen dump after its message, and Playwright's call log without its
 * repeated lines (a click retried for 15 s logs the same few lines dozens of times).
 */
async function described(error: unknown, page: Page): Promise<unknown> {
  const dump = await screenDump(page);
  if (!(error instanceof Error)) return new Error(`${String(error)}\n--- on screen ---\n${dump}`);
  const seen = new Set<string>();
  const message = error.message
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .filter((line) => {
      if (!/^\s/.test(line)) return true;
      const key = line.trim();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .join("\n");
  error.message = `${message}\n--- on screen ---\n${dump}`;
  return error;
}

/** Tries of contextMenuUntil: a right-click that opened no menu, or one without the entry, is repeated. */
const MENU_TRIES = 3;

/**
 * Runs `label` from `row`'s context menu as a user does: right-click, and when the menu does
 * not show the entry (it did not open, opened on a row being redrawn, or the click hit a
 * neighbour), Escape and right-click again, at most MENU_TRIES times. The entry is chosen the
 * way the keyboard does: hovering focuses it, Enter runs it (a click that lands while the
 * menu is still settling only highlights it on a loaded machine). `row` may be a function
 * that makes it ready (e.g. scrolledSessionRow: a row at the pane's edge is covered by its
 * neighbour), called before every try. The error says what each try saw.
 */
export async function contextMenuUntil(
  page: Page,
  row: Locator | (() => Promise<Locator>),
  label: string,
  timeout = 15_000,
): Promise<void> {
  const menu = page.locator(".context-view .monaco-menu");
  const item = menu.locator(".action-item", { hasText: label }).first();
  const tries: string[] = [];
  for (let attempt = 1; attempt <= MENU_TRIES; attempt++) {
    // A try short of the last gets a shorter bound: another try follows.
    const bound = attempt === MENU_TRIES ? timeout : Math.min(timeout, 5_000);
    const target = typeof row === "function" ? await row() : row;
    const clicked = await target.click({ button: "right", timeout: bound }).then(
      () => "",
      (error: Error) => `the right-click failed (${error.message.split("\n")[0]})`,
    );
    const offered =
      !clicked &&
      (await item.waitFor({ state: "visible", timeout: bound }).then(
        () => true,
        () => false,
      ));
    if (offered) {
      await item.hover({ timeout });
      await menu.locator(".action-item.focused", { hasText: label }).waitFor({ timeout });
      await page.keyboard.press("Enter");
      await menu.waitFor({ state: "hidden", timeout });
      return;
    }
    tries.push(clicked || `the menu showed: ${await menuItems(menu)}`);
    if (await menu.isVisible()) await page.keyboard.press("Escape");
  }
  throw new Error(`no "${label}" in the context menu after ${MENU_TRIES} tries: ${tries.join("; ")}`);
}

/** The entries of an open context menu, or that none is open. */
async function menuItems(menu: Locator): Promise<string> {
  const labels = await menu
    .locator(".action-item .action-label")
    .allInnerTexts()
    .catch(() => []);
  const shown = labels.map((l) => l.trim()).filter(Boolean);
  return shown.length ? shown.join(" | ") : "no menu";
}

/**
 * The UI tests' chat workbench: code-server with the loopback provider as its DOWNCITY_*
 * model, closed after `t`, with the `__name` shim (tsx compiles with keepNames: functions
 * shipped to a frame call it), the chat frame and chained steps.
 */
export async function openChatWorkbench(
  t: TestContext,
  out: string,
  baseURL: string,
  settings?: Record<string, unknown>,
  options: { workspaceTrust?: boolean } = {},
) {
  const workbench = await openWorkbench(out, {
    env: { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: baseURL, DOWNCITY_MODEL: "gpt-4o" },
    ...(settings ? { settings } : {}),
    ...options,
  });
  t.after(() => workbench.close());
  const { page } = workbench;
  await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
  return { workbench, page, chat: () => chatFrame(page), step: chainedSteps(t, workbench) };
}

/** Drags the sash between the sidebar and the editor until the sidebar is `width` px wide. */
export async function setSidebarWidth(page: Page, width: number): Promise<void> {
  const sidebar = page.locator(".part.sidebar");
  for (let attempt = 0; attempt < 3; attempt++) {
    const box = (await sidebar.boundingBox())!;
    if (Math.abs(box.width - width) <= 2) return;
    const edge = box.x + box.width;
    await page.mouse.move(edge - 1, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(edge - 1 + (width - box.width) / 2, box.y + box.height / 2, { steps: 4 });
    await page.mouse.move(box.x + width - 1, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
  }
  const final = (await sidebar.boundingBox())!.width;
  assert.ok(Math.abs(final - width) <= 2, `the sidebar is ${final} px wide, not ${width}`);
}

/** Shows a session through the chat header's session list. */
export async function switchTo(chat: FrameLocator, title: string): Promise<void> {
  await chat.getByRole("button", { name: "Sessions", exact: true }).click({ timeout: 30_000 });
  await chat
    .getByRole("navigation", { name: "Sessions" })
    .getByRole("button", { name: title })
    .click({ timeout: 30_000 });
  await chat
    .getByRole("button", { name: new RegExp(`^Session title: ${title.replace(/[.?]/g, "\\$&")}`) })
    .waitFor({ timeout: 30_000 });
}

/** The tool result an OpenAI Chat Completions request body gave the model for call `id` (as JSON text). */
export function toolResult(body: any, id: string): string {
  const message = body.messages.find(
    (m: { role: string; tool_call_id?: string }) => m.role === "tool" && m.tool_call_id === id,
  );
  assert.ok(message, `no tool result for ${id} in ${JSON.stringify(body.messages)}`);
  return JSON.stringify(message.content);
}
