// Connect a model from the chat (issue 19 item 3) as a user does it: dist/downcity.vsix in
// code-server with no provider configured (no DOWNCITY_* either), the loopback provider
// on 127.0.0.1, the form driven through its accessible names. A screenshot per step lands
// in test/.tmp/e2e/connect-ui/; "Connect → ready" is printed for BENCHMARKS.md.
import { strict as assert } from "node:assert";
import { cpSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { freePort, PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame, quickPickRow } from "../support/workbench/workbench";
import { startProviderServer, wire } from "../support/provider-server";
import {
  gotoWorkbench,
  chainedSteps,
  fileMatches,
  filesHolding,
  filesUnder,
  missingVsCode,
  openWorkbench,
  outputDir,
  type Workbench,
  installPackagedVsix,
} from "./helpers";

const KEY = "sk-connect-ui-8c27e4d1b9";

test("connect a model from the chat in the real workbench", { skip: missingVsCode(), timeout: 300_000 }, async (t) => {
  const out = outputDir("connect-ui");
  await installPackagedVsix(out);
  const workspace = join(out, "sample-workspace");
  cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
  // Lists its models to anyone (as local servers do); answers only with the key.
  const provider = await startProviderServer(({ path, headers }) => {
    if (path.endsWith("/models"))
      return { json: { object: "list", data: [{ id: "connect-small" }, { id: "connect-large" }] } };
    if (headers.authorization !== `Bearer ${KEY}`) return wire.error("openai-chat", 401, "Incorrect API key provided");
    return { sse: wire.openaiChat({ text: "Answered through the connected model." }) };
  });
  t.after(() => provider.close());
  const deadPort = await freePort();
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
  const workbench = await openWorkbench(out, { env });
  t.after(() => workbench.close());
  const { page } = workbench;
  await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
  const settingsFile = join(workbench.server.userDataDir, "User", "settings.json");
  const step = chainedSteps(t, workbench);
  const chat = () => chatFrame(page);
  const baseURL = () => chat().getByRole("textbox", { name: "Base URL", exact: true });

  await step("01 with no provider, the chat opens on the connect form", async () => {
    await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
    await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
    await page
      .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
      .click({ timeout: 30_000 });
    await baseURL().waitFor({ timeout: 60_000 });
    await page
      .locator(".part.statusbar .statusbar-item", { hasText: "Downcity: no model" })
      .first()
      .waitFor({ timeout: 30_000 });
    assert.equal(await baseURL().inputValue(), "http://127.0.0.1:11434/v1");
    assert.equal(await chat().getByLabel("API key", { exact: true }).getAttribute("type"), "password");
  });

  await step("02 a failing Connect names what failed, and nothing is saved", async () => {
    await baseURL().fill(`http://127.0.0.1:${deadPort}/v1`);
    await baseURL().press("Tab");
    await chat().getByText(`Cannot reach 127.0.0.1:${deadPort}`).first().waitFor({ timeout: 30_000 });
    await chat().getByRole("textbox", { name: "Model", exact: true }).fill("connect-large");
    await chat().getByRole("button", { name: "Connect", exact: true }).click();
    await chat()
      .getByRole("alert")
      .filter({ hasText: `Cannot reach 127.0.0.1:${deadPort} (connection refused: is the server running?)` })
      .waitFor({ timeout: 30_000 });
    assert.doesNotMatch(readFileSync(settingsFile, "utf8"), /downcity\.providers/);
  });

  let connectToReadyMs = 0;
  await step(
    "03 Base URL, the Model picked from the server's list, an API key, Connect: the chat is ready",
    async () => {
      await baseURL().fill(provider.baseURL);
      await baseURL().press("Tab");
      const model = chat().getByRole("combobox", { name: "Model", exact: true });
      await model.locator("option", { hasText: "connect-large" }).waitFor({ state: "attached", timeout: 30_000 });
      await model.selectOption("connect-large");
      await chat().getByLabel("API key", { exact: true }).fill(KEY);
      const started = Date.now();
      await chat().getByRole("button", { name: "Connect", exact: true }).click();
      await baseURL().waitFor({ state: "detached", timeout: 30_000 });
      await page
        .locator(".part.statusbar .statusbar-item", { hasText: "connect-large" })
        .first()
        .waitFor({ timeout: 30_000 });
      connectToReadyMs = Date.now() - started;
      console.log(`connect-ui: Connect → ready ${connectToReadyMs} ms (form gone, status bar on the model)`);
      const port = new URL(provider.origin).port;
      // The workbench writes settings.json behind the change it applied: wait for the file.
      await fileMatches(settingsFile, new RegExp(`"downcity.defaultProvider":\\s*"local-${port}"`), 15_000);
      const settings = readFileSync(settingsFile, "utf8");
      assert.match(
        settings,
        new RegExp(`"downcity.providers":\\s*\\[\\s*\\{[^}]*"id":\\s*"local-${port}"[^}]*"model":\\s*"connect-large"`),
      );
      assert.ok(!settings.includes(KEY), "the key is not in settings.json");
    },
  );

  await step("04 a message is answered through the connected model, with the key on the request", async () => {
    const newSession = chat().getByRole("button", { name: "New Session", exact: true });
    if (await newSession.isVisible()) await newSession.click();
    const box = chat().getByRole("textbox", { name: "Message", exact: true });
    await box.fill("ping", { timeout: 30_000 });
    await chat().getByRole("button", { name: "Send", exact: true }).click();
    await chat()
      .locator('article[aria-label="Assistant"]', { hasText: "Answered through the connected model." })
      .waitFor({ timeout: 60_000 });
    const calls = provider.requests.filter((r) => r.path.endsWith("/chat/completions"));
    assert.ok(
      calls.some((r) => r.body?.model === "connect-large" && r.headers.authorization === `Bearer ${KEY}`),
      "the run's request carries the key",
    );
    const leaks = filesHolding(
      [join(workspace, ".downcity"), join(workbench.runDir, "user-data", "logs")].flatMap(filesUnder),
      [KEY],
    );
    if (readFileSync(workbench.server.logFile).includes(KEY)) leaks.push(workbench.server.logFile);
    assert.deepEqual(leaks, []);
  });

  await step("05 the status bar item (Select Model) offers Add a model…, which opens the form again", async () => {
    await page
      .locator(".part.statusbar .statusbar-item", { hasText: "connect-large" })
      .first()
      .click({ timeout: 15_000 });
    await quickPickRow(page, "Add a model…").click({ timeout: 15_000 });
    await baseURL().waitFor({ timeout: 30_000 });
    await chat().getByRole("button", { name: "Cancel", exact: true }).click();
    await baseURL().waitFor({ state: "detached", timeout: 15_000 });
  });
});
