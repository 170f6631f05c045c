// The product as a user gets it: dist/downcity.vsix installed into code-server with
// `--install-extension`, the workbench opened in Chromium on the sample workspace and
// driven through its UI. A screenshot per step lands in test/.tmp/e2e/workbench-ui/.
// Steps that need parts of the extension not built yet are skipped, and say so.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync, watch } from "node:fs";
import { dirname } from "node:path";
import { join } from "node:path";
import { test } from "node:test";
import { installVsix, PROJECT_ROOT, workbenchUrl } from "../../scripts/vscode/code-server";
import { Sessions, sessionPaths } from "../../core/storage";
import { assistant, user } from "../support/events";
import { missingVsCode, openWorkbench, outputDir, type Workbench } from "./helpers";

const VSIX = join(PROJECT_ROOT, "dist", "downcity.vsix");
const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"));
const hasViews = Boolean(manifest.contributes?.viewsContainers?.activitybar?.some((c: { id: string }) => c.id === "downcity"));
const hasCommands = Boolean(manifest.contributes?.commands?.length);

test("the VSIX in the real workbench", { skip: missingVsCode(), timeout: 240_000 }, async (t) => {
  const out = outputDir("workbench-ui");
  execFileSync(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "scripts", "package-vsix.ts")], { cwd: PROJECT_ROOT, stdio: "ignore" });
  await installVsix(join(out, "run"), VSIX);
  const installed = readdirSync(join(out, "run", "extensions")).find((d) => d.startsWith(`${manifest.publisher}.${manifest.name}-`));
  assert.ok(installed, "the VSIX did not install");
  const native = join(out, "run", "extensions", installed, "node_modules", "@mongodb-js", `zstd-${process.platform}-${process.arch}-gnu`);
  assert.ok(readdirSync(native).some((f) => f.endsWith(".node")), "the native zstd addon is not in the installed extension");

  // A copy of the sample workspace (the extension writes .downcity/ into it), with one
  // session the core stored before VS Code started.
  const workspace = join(out, "sample-workspace");
  cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
  await seedSession(workspace, "ui-seeded", "Explain the inventory module");

  const workbench = await openWorkbench(out);
  t.after(() => workbench.close());
  const { page } = workbench;
  const step = async (name: string, body: (w: Workbench) => Promise<void>, skip: string | false = false) =>
    t.test(name, { skip }, async () => {
      try {
        await body(workbench);
      } finally {
        await workbench.screenshot(name.replace(/[^a-z0-9]+/gi, "-").toLowerCase());
      }
    });

  await step("01 workbench renders with the sample workspace", async () => {
    await page.goto(workbenchUrl(workbench.server, workspace));
    await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
    await page.locator(".explorer-folders-view, .pane-header", { hasText: /sample-workspace/i }).first().waitFor({ timeout: 30_000 });
  });

  await step("02 the extension is listed as installed", async () => {
    // Offline (no gallery) the Extensions view opens on its Installed section.
    await page.locator('.part.activitybar .action-item a.action-label[aria-label^="Extensions"]').click({ timeout: 30_000 });
    await page.locator(".extensions-viewlet .monaco-list-row", { hasText: manifest.displayName }).first().waitFor({ timeout: 30_000 });
  });

  await step(
    "03 the Downcity view opens from the activity bar",
    async () => {
      await page.locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]').click({ timeout: 30_000 });
      await page.locator(".pane-header", { hasText: /sessions/i }).first().waitFor({ timeout: 30_000 });
      await sessionRow(page, "Explain the inventory module").waitFor({ timeout: 30_000 });
    },
    hasViews ? false : "the extension contributes no Downcity view yet",
  );

  await step(
    "04 the palette lists the Downcity commands",
    async () => {
      await paletteRow(page, "Downcity: New Session").waitFor({ timeout: 15_000 });
      await page.keyboard.press("Escape");
    },
    hasCommands ? false : "the extension contributes no commands yet",
  );

  await step(
    "05 Rename Session from the palette renames it in the tree and on disk",
    async () => {
      const row = await paletteRow(page, "Downcity: Rename Session…").waitFor({ timeout: 15_000 });
      await row.click();
      await page.locator(".quick-input-list .monaco-list-row", { hasText: "Explain the inventory module" }).first().click({ timeout: 15_000 });
      const input = page.locator(".quick-input-widget input");
      await input.fill("Renamed through the UI");
      await page.keyboard.press("Enter");
      await sessionRow(page, "Renamed through the UI").waitFor({ timeout: 15_000 });
      // On disk: the pinned title is appended to the session's log (written behind, so wait for it).
      const { active } = sessionPaths(workspace, "default", "ui-seeded");
      await fileMatches(active, /"session\/title".*"Renamed through the UI".*"user"/, 15_000);
    },
    hasCommands ? false : "the extension contributes no commands yet",
  );
  assert.ok(existsSync(join(out, "01-workbench-renders-with-the-sample-workspace.png")));
});

/** Opens the command palette on `title` and returns its row (the list filters as it is typed). */
function paletteRow(page: Workbench["page"], title: string) {
  return {
    async waitFor(options: { timeout: number }) {
      // Keys reach the workbench only once it has focus: click an empty part of the editor area.
      await page.locator(".monaco-workbench .part.editor").click({ position: { x: 400, y: 300 } });
      await page.keyboard.press("F1");
      const input = page.locator(".quick-input-widget input");
      await input.waitFor({ state: "visible", timeout: 10_000 });
      await input.fill(`>${title}`);
      const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
      await row.waitFor(options);
      return row;
    },
  };
}

function sessionRow(page: Workbench["page"], title: string) {
  return page.locator('.monaco-list-row[role="treeitem"]', { hasText: title }).first();
}

async function seedSession(root: string, id: string, title: string): Promise<void> {
  const sessions = new Sessions({ root });
  const session = sessions.create({ id });
  const seq = user(session, "What does src/inventory.ts do?");
  assistant(session, "It tracks stock levels.");
  session.append("session/title", { title, messageSeqs: [seq], source: { kind: "user" } });
  await sessions.flush(session);
  await sessions.close();
}

/** Resolves once `file` matches, re-read on every change in its folder; rejects after `ms`. */
function fileMatches(file: string, pattern: RegExp, ms: number): Promise<void> {
  const matches = () => existsSync(file) && pattern.test(readFileSync(file, "utf8"));
  return new Promise((ok, fail) => {
    const done = (error?: Error) => {
      clearTimeout(timer);
      watcher.close();
      if (error) fail(error);
      else ok();
    };
    const timer = setTimeout(() => done(new Error(`${file} did not match ${pattern} within ${ms} ms`)), ms);
    const watcher = watch(dirname(file), () => matches() && done());
    if (matches()) done();
  });
}
