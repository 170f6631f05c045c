// The product as a user gets it: dist/downcity.vsix installed into code-server with
// `--install-extension`, the workbench opened in Chromium on the sample workspace and
// driven through its UI. A screenshot per step lands in test/.tmp/e2e/workbench-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readdirSync, readFileSync, statSync, watch, writeFileSync, type FSWatcher } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import {
  chatFrame,
  openDowncityView,
  paletteRow,
  quickPickRow,
  runCommand,
  scrolledSessionRow,
  sessionRow,
} from "../support/workbench/workbench";
import { seedSessions } from "../support/workbench/seed";
import { sessionPaths } from "../../core/storage";
import { startProviderServer, wire } from "../support/provider-server";
import {
  chainedSteps,
  contextMenuUntil,
  dirHolds,
  extensionHostPid,
  fileMatches,
  gotoWorkbench,
  missingVsCode,
  openWorkbench,
  outputDir,
  withTimeout,
  type Workbench,
  installPackagedVsix,
} from "./helpers";

const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"));

test("the VSIX in the real workbench", { skip: missingVsCode(), timeout: 240_000 }, async (t) => {
  const out = outputDir("workbench-ui");
  await installPackagedVsix(out);
  const installed = readdirSync(join(out, "run", "extensions")).find((d) =>
    d.startsWith(`${manifest.publisher}.${manifest.name}-`),
  );
  assert.ok(installed, "the VSIX did not install");
  const native = join(
    out,
    "run",
    "extensions",
    installed,
    "node_modules",
    "@mongodb-js",
    `zstd-${process.platform}-${process.arch}-gnu`,
  );
  assert.ok(
    readdirSync(native).some((f) => f.endsWith(".node")),
    "the native zstd addon is not in the installed extension",
  );
  // The Marketplace screenshots stay in the repository: the page shows them through the
  // https links vsce rewrote from MARKETPLACE.md's relative ones.
  const shipped = join(out, "run", "extensions", installed);
  assert.ok(!existsSync(join(shipped, "media", "screenshots")), "the screenshots were shipped in the VSIX");
  const images = [...readFileSync(join(shipped, "readme.md"), "utf8").matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map(
    (m) => m[1]!,
  );
  assert.ok(
    images.length >= 2 && images.every((url) => url.startsWith(`${manifest.repository.url}/raw/`)),
    `readme images: ${images.join(", ")}`,
  );
  assert.ok(
    images.every((url) => existsSync(join(PROJECT_ROOT, url.replace(/^.*\/raw\/[^/]+\//, "")))),
    "a readme image is not in the repository",
  );

  // A copy of the sample workspace (the extension writes .downcity/ into it), with one
  // session the core stored before VS Code started.
  const workspace = join(out, "sample-workspace");
  cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
  await seedSessions(workspace, [
    {
      id: "ui-seeded",
      title: "Explain the inventory module",
      turns: ["What does src/inventory.ts do?", "It tracks stock levels."],
    },
    {
      id: "ui-two-turns",
      title: "Plan the release",
      turns: ["List the open issues", "There are three.", "Which one first?", "The crash on save."],
    },
    { id: "ui-archivable", title: "Old experiment", turns: ["Try a regex", "Done."] },
  ]);

  // The loopback provider, configured only through code-server's DOWNCITY_* environment
  // (no key: Set API Key gives it one in step 09).
  // A prompt of "hold the line" streams a first part, then stalls until the client leaves (step 14).
  const provider = await startProviderServer(({ path, body }) => {
    if (path.endsWith("/models")) return { json: { object: "list", data: [{ id: "e2e-model" }, { id: "e2e-large" }] } };
    if (JSON.stringify(body).includes("hold the line"))
      return { sse: wire.openaiChat({ text: "Holding the line while you wait." }), stallAfter: 2 };
    return { sse: wire.openaiChat({ text: "Pong from the loopback provider." }) };
  });
  t.after(() => provider.close());
  // The extension's hop trace (core/util/hop-trace.ts): step 19 reads where the Sessions view's first rows came from.
  const hops = join(out, "hops.jsonl");
  const env = {
    DOWNCITY_PROTOCOL: "openai-chat",
    DOWNCITY_BASE_URL: provider.baseURL,
    DOWNCITY_MODEL: "e2e-model",
    DOWNCITY_HOP_TRACE: hops,
  };

  // Nothing is kept word for word when compacting, so step 18's Compact Now closes every
  // message before the newest answer even in a conversation far under the (default) window.
  const workbench = await openWorkbench(out, { env, settings: { "downcity.compaction.retainRatio": 0 } });
  t.after(() => workbench.close());
  const { page } = workbench;
  const step = chainedSteps(t, workbench);

  await step("01 workbench renders with the sample workspace", async () => {
    await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
    await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
    await page
      .locator(".explorer-folders-view, .pane-header", { hasText: /sample-workspace/i })
      .first()
      .waitFor({ timeout: 30_000 });
  });

  await step("02 the extension is listed as installed, and active before any of its views opens", async () => {
    // Offline (no gallery) the Extensions view opens on its Installed section.
    await page
      .locator('.part.activitybar .action-item a.action-label[aria-label^="Extensions"]')
      .click({ timeout: 30_000 });
    await page
      .locator(".extensions-viewlet .monaco-list-row", { hasText: manifest.displayName })
      .first()
      .waitFor({ timeout: 30_000 });
    // It activates after start-up (onStartupFinished): the model's status-bar item shows while the Downcity views
    // were never opened, and the Sessions tree has its first page ready for the first click (step 03).
    const sessionsHeader = page.locator(".pane-header", { hasText: /sessions/i }).first();
    assert.equal(await sessionsHeader.isVisible(), false, "the Sessions view was opened");
    await page
      .locator(".part.statusbar .statusbar-item", { hasText: "e2e-model" })
      .first()
      .waitFor({ timeout: 60_000 });
  });

  await step("03 the Downcity view opens from the activity bar", async () => {
    await openDowncityView(page);
    await sessionRow(page, "Explain the inventory module").waitFor({ timeout: 30_000 });
  });

  await step("04 the palette lists the Downcity commands", async () => {
    await paletteRow(page, "Downcity: New Session");
    await page.keyboard.press("Escape");
  });

  await step("05 Rename Session from the palette renames it in the tree and on disk", async () => {
    await runCommand(page, "Downcity: Rename Session…");
    await quickPickRow(page, "Explain the inventory module").click({ timeout: 15_000 });
    const input = page.locator(".quick-input-widget input");
    await input.fill("Renamed through the UI");
    await page.keyboard.press("Enter");
    await sessionRow(page, "Renamed through the UI").waitFor({ timeout: 15_000 });
    // On disk: the pinned title is appended to the session's log (written behind, so wait for it).
    const { active } = sessionPaths(workspace, "default", "ui-seeded");
    await diskMatches(
      dirname(active),
      () => /"session\/title".*"Renamed through the UI".*"user"/.test(readIfExists(active)),
      15_000,
      `the pinned title in ${active}`,
    );
  });

  const agentDir = join(workspace, ".downcity", "agents", "default");
  const liveIds = () => readdirSync(join(agentDir, "sessions"));
  /** Waits for a session folder not in `known` whose log matches `pattern`; returns its id. */
  const newSession = async (known: string[], pattern: RegExp) => {
    let found = "";
    await diskMatches(
      agentDir,
      () => {
        found =
          liveIds().find(
            (id) => !known.includes(id) && pattern.test(readIfExists(sessionPaths(workspace, "default", id).active)),
          ) ?? "";
        return found !== "";
      },
      15_000,
      `a new session whose log matches ${pattern}`,
    );
    return found;
  };

  await step("06 Fork Session from the palette (whole session) adds a row and a session folder", async () => {
    const before = liveIds();
    await runCommand(page, "Downcity: Fork Session…");
    await quickPickRow(page, "Renamed through the UI").click({ timeout: 15_000 });
    await quickPickRow(page, "Whole session").click({ timeout: 15_000 });
    // The fork is told apart from its source: "Fork of ‹title›".
    await sessionRow(page, "Fork of Renamed through the UI").waitFor({ timeout: 15_000 });
    const id = await newSession(before, /What does src\/inventory\.ts do\?[\s\S]*It tracks stock levels\./);
    assert.notEqual(id, "ui-seeded");
  });

  await step("07 Fork Session from the tree's context menu, from a user message", async () => {
    const before = liveIds();
    const rows = await treeRowCount(page);
    await contextMenuUntil(page, () => scrolledSessionRow(page, "Plan the release"), "Fork Session…");
    await quickPickRow(page, "From a user message…").click({ timeout: 15_000 });
    await quickPickRow(page, "Which one first?").click({ timeout: 15_000 });
    const id = await newSession(before, /There are three\./);
    const log = readFileSync(sessionPaths(workspace, "default", id).active, "utf8");
    assert.doesNotMatch(log, /Which one first\?/, "the fork holds only the history before the chosen message");
    await page.waitForFunction((n) => document.querySelectorAll('.monaco-list-row[role="treeitem"]').length > n, rows, {
      timeout: 15_000,
    });
  });

  const archived = sessionPaths(workspace, "default", "ui-archivable", "archived").dir;
  const live = sessionPaths(workspace, "default", "ui-archivable").dir;
  await step(
    "08 Archive through the tree's inline action moves the row under Archived and the folder to archived/",
    async () => {
      const row = await scrolledSessionRow(page, "Old experiment");
      await row.hover({ timeout: 15_000 });
      await row.locator('.action-label[aria-label="Archive Session"]').click({ timeout: 15_000 });
      await diskMatches(
        agentDir,
        () => existsSync(archived) && !existsSync(live),
        15_000,
        `${archived} to replace ${live}`,
      );
      await row.waitFor({ state: "detached", timeout: 15_000 });
      // The Archived group is collapsed: expand it and find the row there.
      await page
        .locator('.monaco-list-row[role="treeitem"][aria-expanded="false"]', { hasText: /^Archived/ })
        .first()
        .click({ timeout: 15_000 });
      await row.waitFor({ timeout: 15_000 });
    },
  );

  await step("09 Unarchive from the archived row's context menu moves it back", async () => {
    // Expanded at the pane's bottom edge, the row is cut off: the click hit the status bar (a 5-run loop at load 20).
    await contextMenuUntil(page, () => scrolledSessionRow(page, "Old experiment"), "Unarchive Session");
    await diskMatches(
      agentDir,
      () => existsSync(live) && !existsSync(archived),
      15_000,
      `${live} to replace ${archived}`,
    );
    assert.match(readFileSync(sessionPaths(workspace, "default", "ui-archivable").active, "utf8"), /Try a regex/);
    await page
      .locator('.monaco-list-row[role="treeitem"][aria-expanded="true"]', { hasText: /^Archived/ })
      .first()
      .waitFor({ state: "detached", timeout: 15_000 });
    await sessionRow(page, "Old experiment").waitFor({ timeout: 15_000 });
  });

  const KEY = "sk-e2e-3b9d51f07c2a48e6";
  await step("10 Set API Key stores the key typed into the password box", async () => {
    await runCommand(page, "Downcity: Set API Key…");
    const input = page.locator('.quick-input-widget input[type="password"]');
    await input.fill(KEY, { timeout: 15_000 });
    await page.keyboard.press("Enter");
    await page
      .locator(".notifications-toasts", { hasText: 'the API key for "env" is stored' })
      .first()
      .waitFor({ timeout: 15_000 });
  });

  await step("11 a prompt in the chat reaches the provider with that key, and the key is written nowhere", async () => {
    await runCommand(page, "Downcity: New Session");
    await quickPickRow(page, /^Code/).click({ timeout: 15_000 });
    const chat = chatFrame(page);
    await chat.getByRole("textbox", { name: "Message" }).waitFor({ timeout: 30_000 });
    const messages = await recordWebviewMessages(page);
    await chat.getByRole("textbox", { name: "Message" }).fill("ping");
    await chat.getByRole("button", { name: "Send" }).click();
    await chat
      .locator('article[aria-label="Assistant"]', { hasText: "Pong from the loopback provider." })
      .waitFor({ timeout: 30_000 });
    const calls = provider.requests.filter((r) => r.path.endsWith("/chat/completions"));
    assert.ok(calls.length > 0, "the provider saw the prompt");
    assert.deepEqual([...new Set(calls.map((r) => r.headers.authorization))], [`Bearer ${KEY}`]);

    const seen = await messages();
    assert.ok(
      seen.some((m) => m.includes("Pong from the loopback provider.")),
      "the capture saw the run's messages to the webview",
    );
    const leaks = seen.filter((m) => m.includes(KEY)).map(() => "a message to the webview");
    for (const dir of [join(workspace, ".downcity"), join(workbench.runDir, "user-data", "logs")]) {
      for (const file of filesUnder(dir)) if (readFileSync(file).includes(KEY)) leaks.push(file);
    }
    if (readFileSync(workbench.server.logFile).includes(KEY)) leaks.push(workbench.server.logFile);
    assert.deepEqual(leaks, []);
  });
  await step("12 Export Session from the palette writes a Markdown transcript through the save dialog", async () => {
    const target = join(workspace, "Plan-the-release.md");
    await runCommand(page, "Downcity: Export Session…");
    await quickPickRow(page, /^Plan the release/).click({ timeout: 15_000 });
    await quickPickRow(page, /^Markdown/).click({ timeout: 15_000 });
    // code-server's save dialog is the workbench's own: a path box, prefilled with the default.
    const path = page.locator(".quick-input-widget input").filter({ visible: true });
    await page.waitForFunction(
      () => {
        const box = document.querySelector<HTMLInputElement>(".quick-input-widget input");
        return Boolean(box?.value.endsWith("Plan-the-release.md"));
      },
      undefined,
      { timeout: 15_000 },
    );
    await path.press("Enter");
    await diskMatches(
      workspace,
      () => /Which one first\?/.test(readIfExists(target)),
      15_000,
      `${target} to hold the transcript`,
    );
  });

  await step(
    "13 Delete Session from the context menu asks in a modal, then removes the row and the folder",
    async () => {
      await contextMenuUntil(page, () => scrolledSessionRow(page, "Old experiment"), "Delete Session…");
      const dialog = page.locator(".monaco-dialog-box", { hasText: 'Delete "Old experiment"?' });
      await dialog.getByRole("button", { name: "Delete" }).click({ timeout: 15_000 });
      await diskMatches(agentDir, () => !existsSync(live), 15_000, `${live} to be removed`);
      await sessionRow(page, "Old experiment").waitFor({ state: "detached", timeout: 15_000 });
    },
  );
  await step(
    "14 Cancel Run from the palette stops a streaming run: the request is aborted and the chat is idle again",
    async () => {
      const chat = chatFrame(page);
      await chat.getByRole("textbox", { name: "Message" }).fill("hold the line");
      await chat.getByRole("button", { name: "Send" }).click();
      await chat.getByRole("button", { name: "Stop" }).waitFor({ timeout: 30_000 });
      // Stop shows when the run starts, which can be before its request reaches the server (seen under load).
      const held = await provider.arrived((r) => JSON.stringify(r.body).includes("hold the line"), 30_000);
      await runCommand(page, "Downcity: Cancel Run");
      // The pick lists running sessions only: the held one is the first row.
      await page
        .locator('.quick-input-widget input[placeholder="Cancel the run of a session"]')
        .waitFor({ timeout: 15_000 });
      await quickPickRow(page, /./).waitFor({ timeout: 15_000 });
      await page.keyboard.press("Enter");
      await withTimeout(held.closed, 15_000, "the held request to be closed");
      assert.equal(held.clientAborted, true, "the run's request was aborted");
      await chat.getByRole("button", { name: "Send" }).waitFor({ timeout: 15_000 });
      await chat.getByRole("button", { name: "Stop" }).waitFor({ state: "detached", timeout: 15_000 });
    },
  );

  await step("15 Select Model offers the server's models and the status bar follows the choice", async () => {
    await runCommand(page, "Downcity: Select Model…");
    await quickPickRow(page, /e2e-large/).click({ timeout: 15_000 });
    await page
      .locator(".part.statusbar .statusbar-item", { hasText: "e2e-large" })
      .first()
      .waitFor({ timeout: 15_000 });
  });

  await step("16 Show Session Files reveals the session's folder in the Explorer", async () => {
    await runCommand(page, "Downcity: Show Session Files");
    await quickPickRow(page, /^Plan the release/).click({ timeout: 15_000 });
    await page
      .locator('.explorer-folders-view .monaco-list-row[aria-selected="true"]', { hasText: "ui-two-turns" })
      .first()
      .waitFor({ timeout: 15_000 });
  });

  await step("17 Open Session… from the palette switches the chat to the chosen session", async () => {
    await runCommand(page, "Downcity: Open Session…");
    // The source, not step 07's "Fork of Plan the release".
    await quickPickRow(page, /^Plan the release/).click({ timeout: 15_000 });
    const chat = chatFrame(page);
    await chat
      .locator('article[aria-label="Assistant"]', { hasText: "The crash on save." })
      .waitFor({ timeout: 30_000 });
    await chat.locator("article", { hasText: "Which one first?" }).first().waitFor({ timeout: 15_000 });
  });

  await step("18 Compact Now from the palette reports what it closed", async () => {
    const { segments, active } = sessionPaths(workspace, "default", "ui-two-turns");
    await runCommand(page, "Downcity: Compact Now");
    await quickPickRow(page, /^Plan the release/).click({ timeout: 15_000 });
    // retainRatio 0 (the settings above): every message before the newest answer closes.
    const toast = page
      .locator(".notifications-toasts .notification-list-item", {
        hasText: /"Plan the release": Compacted \d+ messages?/,
      })
      .first();
    await toast.waitFor({ timeout: 30_000 });
    const shown = Number(/Compacted (\d+) message/.exec(await toast.innerText())?.[1]);
    await diskMatches(
      dirname(segments),
      () => existsSync(segments) && readdirSync(segments).length === 1,
      15_000,
      `a segment in ${segments}`,
    );
    // One count: the toast says what the log's compaction/end event counts (the chat's notice reads the same).
    const end = readFileSync(active, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((e) => e.type === "compaction/end");
    assert.ok(shown > 0 && end?.data.closed === shown, `toast ${shown}, compaction/end ${JSON.stringify(end?.data)}`);
  });
  await step("19 a reload draws the rows the window remembered, each as the disk says now", async () => {
    // What this window's Sessions view showed first, kept in its workspace storage (ids only).
    const storage = join(workbench.server.userDataDir, "User", "workspaceStorage");
    const [id] = await dirHolds(storage, 1, 30_000);
    const remembered = join(storage, id!, `${manifest.publisher}.${manifest.name}`, "sessions-first-rows.json");
    await fileMatches(remembered, /"ui-seeded"/, 30_000);
    assert.doesNotMatch(
      readFileSync(remembered, "utf8"),
      /Plan the release|Renamed through the UI/,
      "ids, never titles",
    );
    // While no extension host runs, another process renames a remembered session.
    process.kill(extensionHostPid(workbench.server.process.pid!), "SIGKILL");
    const meta = sessionPaths(workspace, "default", "ui-seeded").meta;
    writeFileSync(meta, JSON.stringify({ ...JSON.parse(readFileSync(meta, "utf8")), title: "Renamed while closed" }));
    writeFileSync(hops, "");
    await page.reload();
    await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
    await openDowncityView(page);
    await sessionRow(page, /^Plan the release/).waitFor({ timeout: 30_000 });
    // The Sessions view starts small: the renamed row may be below its fold.
    assert.ok(await (await scrolledSessionRow(page, /^Renamed while closed/)).isVisible(), "the renamed row");
    const listed = readFileSync(hops, "utf8")
      .split("\n")
      .filter((line) => line.includes("tree first page listed"));
    assert.deepEqual(
      listed.map((line) => JSON.parse(line).hop),
      ["tree first page listed (remembered)"],
      "the first rows came from the remembered ids, not from a pass over every session",
    );
    await workbench.screenshot("19-reload-remembered-rows");
  });
  assert.ok(existsSync(join(out, "01-workbench-renders-with-the-sample-workspace.png")));
});

function readIfExists(file: string): string {
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

/**
 * Resolves once `check()` holds, re-checked on every change under `dir`; rejects after `ms`.
 * Node's recursive watch walks the tree and fails (ENOENT) when a folder moves away during
 * the walk, as archive does: then it re-checks and watches again.
 */
function diskMatches(dir: string, check: () => boolean, ms: number, what: string): Promise<void> {
  return new Promise((ok, fail) => {
    let watcher: FSWatcher | undefined;
    let settled = false;
    const timer = setTimeout(() => done(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    function done(error?: Error) {
      settled = true;
      clearTimeout(timer);
      watcher?.close();
      if (error) fail(error);
      else ok();
    }
    function start() {
      if (settled) return;
      try {
        watcher = watch(dir, { recursive: true }, () => check() && done());
        watcher.on("error", restart);
      } catch {
        return restart();
      }
      if (check()) done();
    }
    function restart() {
      watcher?.close();
      if (check()) done();
      else setImmediate(start);
    }
    start();
  });
}

function treeRowCount(page: Workbench["page"]): Promise<number> {
  return page.locator('.monaco-list-row[role="treeitem"]').count();
}

/**
 * Records, as JSON text, every message the extension posts to the chat webview from now
 * on (VS Code's outer frame forwards each to the inner document's window).
 */
async function recordWebviewMessages(page: Workbench["page"]): Promise<() => Promise<string[]>> {
  const body = chatFrame(page).locator("body");
  await body.evaluate(() => {
    const w = window as unknown as { __downcityMessages: string[] };
    w.__downcityMessages = [];
    window.addEventListener("message", (e) => w.__downcityMessages.push(JSON.stringify(e.data)), true);
  });
  return () => body.evaluate(() => (window as unknown as { __downcityMessages: string[] }).__downcityMessages);
}
