// Issue 25 items 2 and 3 in the real workbench (dist/downcity.vsix in code-server, the model
// played by the loopback provider server): the rules chip of the folder's AGENTS.md opens
// the file; typing @file, picking a file and sending shows its chip in the transcript and
// puts the file's text (and the rules) in the provider's request; "Add to Chat" in the
// Explorer's context menu attaches a file to the composer. A screenshot per step lands in
// test/.tmp/e2e/context-ui/.
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator } from "playwright-core";
import { installVsix, PROJECT_ROOT, workbenchUrl } from "../../scripts/vscode/code-server";
import { wire } from "../support/provider-server";
import { startProviderServer } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import { missingVsCode, openChatWorkbench, outputDir } from "./helpers";

const VSIX = join(PROJECT_ROOT, "dist", "downcity.vsix");
const RULE = "Rule from AGENTS.md: name every SKU in upper case.";
const answer = (text: string) => () => ({
  sse: wire.openaiChat({ model: "gpt-4o", usage: { input: 300, output: 20 }, text }),
});

/** The text of the user messages of a Chat Completions request body. */
function userText(body: any): string {
  return body.messages
    .filter((m: { role: string }) => m.role === "user")
    .map((m: { content: string | { text?: string }[] }) =>
      typeof m.content === "string" ? m.content : m.content.map((p) => p.text ?? "").join("\n"),
    )
    .join("\n");
}

test(
  "context in the real workbench: rules chips open AGENTS.md, @file attaches and sends a file, Add to Chat from the Explorer",
  { skip: missingVsCode(), timeout: 600_000 },
  async (t) => {
    const out = outputDir("context-ui");
    execFileSync(process.execPath, ["--import", "tsx", join(PROJECT_ROOT, "scripts", "package-vsix.ts")], {
      cwd: PROJECT_ROOT,
      stdio: "ignore",
    });
    await installVsix(join(out, "run"), VSIX);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    writeFileSync(join(workspace, "AGENTS.md"), `# Project rules\n\n${RULE}\n`);
    const inventory = readFileSync(join(workspace, "src", "inventory.ts"), "utf8");
    const readme = readFileSync(join(workspace, "README.md"), "utf8");

    const model = scriptedModel([
      answer("The inventory module keeps stock levels."),
      answer("The README explains the sample."),
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    const { workbench, page, chat, step } = await openChatWorkbench(t, out, provider.baseURL);
    const box = () => chat().getByRole("textbox", { name: "Message", exact: true });

    await step("01 a new session lists the folder's AGENTS.md as a rules chip", async () => {
      await page.goto(workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 60_000 });
      await chat().getByRole("button", { name: "New Session", exact: true }).click({ timeout: 60_000 });
      await rulesChip(chat(), "AGENTS.md").waitFor({ timeout: 60_000 });
    });

    await step("02 the rules chip opens AGENTS.md in an editor", async () => {
      await rulesChip(chat(), "AGENTS.md").click({ timeout: 10_000 });
      await page.locator(".tabs-container .tab.active", { hasText: "AGENTS.md" }).waitFor({ timeout: 60_000 });
      await page
        .locator(".monaco-editor .view-lines", { hasText: "name every SKU in upper case" })
        .first()
        .waitFor({ timeout: 60_000 });
    });

    await step("03 typing @file opens the mention menu; picking a file makes a chip", async () => {
      await box().click({ timeout: 10_000 });
      await box().pressSequentially("Explain @file", { timeout: 10_000 });
      const menu = chat().getByRole("listbox", { name: "Mentions" });
      await menu.getByRole("option", { name: /^@file/ }).waitFor({ timeout: 30_000 });
      await box().press("Enter");
      await box().pressSequentially("inventory.ts", { timeout: 10_000 });
      await menu
        .getByRole("option", { name: "src/inventory.ts", exact: true, selected: true })
        .waitFor({ timeout: 30_000 });
      await box().press("Enter");
      await chat().getByRole("button", { name: "Remove src/inventory.ts", exact: true }).waitFor({ timeout: 30_000 });
      assert.equal(await box().inputValue(), "Explain");
      // The meter counts the chip before sending.
      assert.match(
        (await chat().getByRole("meter", { name: "Context used" }).getAttribute("title")) ?? "",
        /tokens attached, sent with the next message/,
      );
    });

    await step(
      "04 Send: the chip is in the transcript, the file's text and the rules are in the provider's request",
      async () => {
        await chat().getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
        const body = await model.request(0, "the @file prompt");
        const sent = userText(body);
        assert.match(sent, /^Explain/);
        assert.ok(sent.includes("Attached file `src/inventory.ts`:"), sent.slice(0, 300));
        assert.ok(sent.includes(inventory.split("\n").slice(0, 5).join("\n")), "the file's text as the editor has it");
        assert.ok(body.messages[0].content.includes(RULE), "AGENTS.md in the system prompt");
        const you = chat().locator('article.message.user[aria-label="You"]').last();
        await you.locator("summary", { hasText: "src/inventory.ts" }).waitFor({ timeout: 60_000 });
        await chat()
          .locator("article.message.assistant", { hasText: "The inventory module keeps stock levels." })
          .waitFor({ timeout: 60_000 });
        assert.equal(
          await chat().getByRole("button", { name: "Remove src/inventory.ts", exact: true }).count(),
          0,
          "the composer's chip went with the message",
        );
      },
    );

    await step("05 Add to Chat in the Explorer's context menu attaches README.md to the composer", async () => {
      await page.keyboard.press("Control+Shift+E");
      const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: "README.md" }).first();
      await row.waitFor({ timeout: 60_000 });
      await row.click({ button: "right", timeout: 10_000 });
      // VS Code's menu acts on the focused item: hover it (focus follows), then Enter.
      const item = page.locator(".context-view .monaco-menu .action-label", { hasText: "Add to Chat" }).first();
      await item.hover({ timeout: 30_000 });
      await page
        .locator(".context-view .monaco-menu .action-item.focused", { hasText: "Add to Chat" })
        .waitFor({ timeout: 10_000 });
      await page.keyboard.press("Enter");
      await chat().getByRole("button", { name: "Remove README.md", exact: true }).waitFor({ timeout: 60_000 });
    });

    await step("06 sending it puts README.md's text in the request", async () => {
      await box().fill("And this?", { timeout: 10_000 });
      await chat().getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
      const sent = userText(await model.request(1, "the Add to Chat prompt"));
      assert.ok(sent.includes("Attached file `README.md`:"), sent.slice(-400));
      assert.ok(sent.includes(readme.split("\n")[0]!), "README's text");
      await chat()
        .locator('article.message.user[aria-label="You"]')
        .last()
        .locator("summary", { hasText: "README.md" })
        .waitFor({ timeout: 60_000 });
    });
  },
);

const rulesChip = (chat: FrameLocator, path: string) =>
  chat
    .getByRole("group", { name: "Rules files" })
    .getByRole("button", { name: `Open rules file ${path}`, exact: true });
