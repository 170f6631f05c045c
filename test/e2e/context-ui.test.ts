// Issue 25 items 2 and 3 in the real workbench (dist/downcity.vsix in code-server, the model
// played by the loopback provider server): the rules chip of the folder's AGENTS.md opens
// the file; typing @file, picking a file and sending shows its chip in the transcript and
// puts the file's text (and the rules) in the provider's request; "Add to Chat" in the
// Explorer's context menu attaches a file to the composer, and in the editor's context menu
// the editor's selection (the selected lines reach the request); a real mouse drag of a file from
// the Explorer onto the chat (open in an editor tab, Shift held as VS Code asks for a drop
// into a webview) attaches it, and sending puts it in the request and in the user message's
// event on disk. A screenshot per step lands in test/.tmp/e2e/context-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readdirSync, readFileSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Locator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { wire } from "../support/provider-server";
import { startProviderServer } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  gotoWorkbench,
  missingVsCode,
  openChatWorkbench,
  outputDir,
  runPaletteCommand,
  runPaletteCommandUntil,
  withTimeout,
  installPackagedVsix,
} from "./helpers";

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
  "context in the real workbench: rules chips open AGENTS.md, @file attaches and sends a file, Add to Chat and a drag from the Explorer",
  { skip: missingVsCode(), timeout: 600_000 },
  async (t) => {
    const out = outputDir("context-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    writeFileSync(join(workspace, "AGENTS.md"), `# Project rules\n\n${RULE}\n`);
    const inventory = readFileSync(join(workspace, "src", "inventory.ts"), "utf8");
    const readme = readFileSync(join(workspace, "README.md"), "utf8");
    const spec = readFileSync(join(workspace, "src", "inventory.spec.ts"), "utf8");

    const model = scriptedModel([
      answer("The inventory module keeps stock levels."),
      answer("The README explains the sample."),
      answer("Those lines declare Item."),
      answer("The spec tests the restock rule."),
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    const { workbench, page, chat, step } = await openChatWorkbench(t, out, provider.baseURL);
    const box = () => chat().getByRole("textbox", { name: "Message", exact: true });

    await step("01 a new session lists the folder's AGENTS.md as a rules chip", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
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

    await step(
      "07 Add to Chat in the editor's context menu attaches the editor's selection to the composer",
      async () => {
        // Quick Open needs the workbench's focus: click an empty part of the editor area first.
        await page.locator(".monaco-workbench .part.editor").click({ position: { x: 400, y: 300 }, timeout: 30_000 });
        await page.keyboard.press("Control+P");
        const quickOpen = page.locator(".quick-input-widget input");
        await quickOpen.waitFor({ state: "visible", timeout: 30_000 });
        await quickOpen.fill("src/inventory.ts", { timeout: 10_000 });
        await page
          .locator(".quick-input-list .monaco-list-row.focused", { hasText: "inventory.ts" })
          .filter({ hasNotText: "spec" })
          .waitFor({ timeout: 30_000 });
        await page.keyboard.press("Enter");
        await page.locator(".tabs-container .tab.active", { hasText: "inventory.ts" }).waitFor({ timeout: 60_000 });
        const editor = page.locator(".part.editor .editor-instance .monaco-editor").first();
        const firstLine = editor.locator(".view-line", { hasText: "export interface Item {" }).first();
        await firstLine.click({ timeout: 30_000 });
        await page.keyboard.press("Control+Home");
        await page.keyboard.press("Shift+ArrowDown");
        await page.keyboard.press("Shift+ArrowDown");
        await page.keyboard.press("Shift+End");
        // A right-click inside the selection keeps it; the menu acts on the focused item (hover, then Enter).
        await firstLine.click({ button: "right", timeout: 10_000 });
        const item = page.locator(".context-view .monaco-menu .action-label", { hasText: "Add to Chat" }).first();
        await item.hover({ timeout: 30_000 });
        await page
          .locator(".context-view .monaco-menu .action-item.focused", { hasText: "Add to Chat" })
          .waitFor({ timeout: 10_000 });
        await page.keyboard.press("Enter");
        await chat()
          .getByRole("button", { name: "Remove Selection (inventory.ts:1-3)", exact: true })
          .waitFor({ timeout: 60_000 });
      },
    );

    await step("08 sending it puts the selected lines, not the whole file, in the request", async () => {
      await box().fill("What do these lines do?", { timeout: 10_000 });
      await chat().getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
      const sent = userText(await model.request(2, "the editor's Add to Chat prompt"));
      assert.ok(sent.includes("Attached selection, lines 1-3 of `src/inventory.ts`:"), sent.slice(-400));
      assert.ok(sent.includes(inventory.split("\n").slice(0, 3).join("\n")), "the selected lines");
      const attachedPart = sent.slice(sent.lastIndexOf("Attached selection"));
      assert.ok(!attachedPart.includes(inventory.split("\n")[6]!), "line 7 was not selected");
      await chat()
        .locator('article.message.user[aria-label="You"]')
        .last()
        .locator("summary", { hasText: "Selection (inventory.ts:1-3)" })
        .waitFor({ timeout: 60_000 });
    });

    await step(
      "09 a real drag from the Explorer onto the chat (in an editor tab, Shift held) attaches src/inventory.spec.ts",
      async () => {
        await runPaletteCommand(page, "Downcity: Open Chat in Editor", 30_000);
        // The editor's webview has focus, and keeps keys: the palette shows the Explorer.
        await runPaletteCommandUntil(page, "View: Show Explorer", page.locator(".explorer-folders-view"));
        // The sidebar shows the Explorer now: the one visible chat is the editor tab's.
        await box().waitFor({ timeout: 60_000 });
        const src = page
          .locator(".explorer-folders-view .monaco-list-row")
          .filter({ has: page.locator(".label-name").getByText("src", { exact: true }) })
          .first();
        const spec = page.locator(".explorer-folders-view .monaco-list-row", { hasText: "inventory.spec.ts" }).first();
        if ((await src.getAttribute("aria-expanded", { timeout: 60_000 })) !== "true") await src.click();
        await spec.waitFor({ timeout: 30_000 });
        await dragWithShift(page, spec, chat().locator("footer.composer"));
        await chat()
          .getByRole("button", { name: "Remove src/inventory.spec.ts", exact: true })
          .waitFor({ timeout: 30_000 });
        assert.equal(await chat().locator("footer.composer .mention-error").count(), 0);
      },
    );

    await step(
      "10 sending it: the dropped file is in the provider's request and in the user message's event on disk",
      async () => {
        await box().fill("And the tests?", { timeout: 10_000 });
        await chat().getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
        const sent = userText(await model.request(3, "the dropped file's prompt"));
        assert.ok(sent.includes("Attached file `src/inventory.spec.ts`:"), sent.slice(-400));
        assert.ok(sent.includes(spec.split("\n").slice(0, 5).join("\n")), "the spec's text");
        await chat()
          .locator('article.message.user[aria-label="You"]')
          .last()
          .locator("summary", { hasText: "src/inventory.spec.ts" })
          .waitFor({ timeout: 60_000 });
        await userMessageOnDisk(workspace, "And the tests?", (content) =>
          content.some((b) => b.attachment?.kind === "file" && b.attachment.path === "src/inventory.spec.ts"),
        );
      },
    );
  },
);

/**
 * A real drag in Chromium (mouse down on `from`, moves, up on `to`), as a user makes it:
 * Shift is held once the drag has started, since VS Code keeps a workbench drag out of
 * webviews (their iframes get `pointer-events: none`) unless Shift is down over them.
 */
async function dragWithShift(page: Page, from: Locator, to: Locator): Promise<void> {
  const a = (await from.boundingBox())!;
  const b = (await to.boundingBox())!;
  const [x, y] = [a.x + a.width / 2, a.y + a.height / 2];
  const [tx, ty] = [b.x + b.width / 2, b.y + b.height / 2];
  await page.mouse.move(x, y);
  await page.mouse.down();
  try {
    await page.mouse.move(x + 20, y + 4, { steps: 3 });
    await page.keyboard.down("Shift");
    await page.mouse.move(tx, ty, { steps: 10 });
    await page.mouse.move(tx + 3, ty + 1, { steps: 2 });
  } finally {
    await page.mouse.up();
    await page.keyboard.up("Shift");
  }
}

/** Resolves once a `user/message` event holding `prompt` is in a session log and `check` holds for its content. */
function userMessageOnDisk(
  workspace: string,
  prompt: string,
  check: (content: { type: string; text?: string; attachment?: { kind: string; path?: string } }[]) => boolean,
): Promise<void> {
  const dir = join(workspace, ".downcity", "agents", "code", "sessions");
  const satisfied = () => {
    for (const id of existsSync(dir) ? readdirSync(dir) : []) {
      const file = join(dir, id, "messages", "active.jsonl");
      if (!existsSync(file)) continue;
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (!line.includes('"user/message"') || !line.includes(prompt)) continue;
        const event = JSON.parse(line) as { type: string; data: { content: Parameters<typeof check>[0] } };
        if (event.type === "user/message" && check(event.data.content)) return true;
      }
    }
    return false;
  };
  let watcher: ReturnType<typeof watch> | undefined;
  return withTimeout(
    new Promise<void>((resolve) => {
      watcher = watch(join(workspace, ".downcity"), { recursive: true }, () => satisfied() && resolve());
      if (satisfied()) resolve();
    }),
    30_000,
    `the user message "${prompt}" with its attachment on disk`,
  ).finally(() => watcher?.close());
}

const rulesChip = (chat: FrameLocator, path: string) =>
  chat
    .getByRole("group", { name: "Rules files" })
    .getByRole("button", { name: `Open rules file ${path}`, exact: true });
