// Issue 25's MCP and rules gaps in the real workbench (code-server), one chained scenario:
// - "Downcity: MCP Servers" is live: Start on a server brings the list back, and its row
//   goes starting → running while the list stays open;
// - a server that hangs at start (the fixture, held until this test writes its gate file)
//   does not hold the first run: the chat says it is still starting, and it joins the next
//   run once released (the list shows that change live too). It is held across steps whose
//   length depends on the machine's load, so the start timeout is set past the test's own
//   (downcity.mcp.startTimeoutSeconds): the default 30 s failed it before step 04 under load;
// - server-everything's get-tiny-image result is drawn as an image in the card;
// - "Always allow" on the approval card runs the call, the next call runs with no card,
//   the session log on disk says so, the choice is in the extension's mcp-trust.json and
//   survives a window reload;
// - the rules chips follow a rules file written on disk, with no turn.
// A screenshot per step lands in test/.tmp/e2e/mcp-live-ui/.
import { strict as assert } from "node:assert";
import { cpSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { startProviderServer, wire } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  gotoWorkbench,
  missingVsCode,
  openChatWorkbench,
  outputDir,
  runPaletteCommand,
  installPackagedVsix,
} from "./helpers";
import { trustFiles } from "./mcp-trust-file";
import { untilElement } from "./until-element";

const EVERYTHING = join(PROJECT_ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const FIXTURE = join(PROJECT_ROOT, "test/support/mcp-fixture-server.ts");
const IMAGE_TOOL = "mcp__everything__get-tiny-image";
const sse = (script: Parameters<typeof wire.openaiChat>[0]) =>
  wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, ...script });
/** The test's own bound: the held server may wait as long as the whole test, and no longer. */
const TEST_TIMEOUT_MS = 900_000;
const imageCall = (id: string) => () => ({ sse: sse({ toolCalls: [{ id, name: IMAGE_TOOL, arguments: {} }] }) });

test(
  "MCP live in the real workbench: live server list, a slow server, result images, Always allow, live rules chips",
  { skip: missingVsCode(), timeout: TEST_TIMEOUT_MS },
  async (t) => {
    const out = outputDir("mcp-live-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });
    writeFileSync(join(workspace, "AGENTS.md"), "# Rules\n\nAnswer briefly.\n");
    const gate = join(out, "release-slow");

    const model = scriptedModel([
      imageCall("call_img1"),
      () => ({ sse: sse({ text: "Here is the image." }) }),
      imageCall("call_img2"),
      () => ({ sse: sse({ text: "Here it is again." }) }),
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    // The user's own servers (trusted: no consent modal), and CLAUDE.md as an extra rules file.
    const { workbench, page, chat, step } = await openChatWorkbench(t, out, provider.baseURL, {
      "downcity.mcp.servers": {
        servers: {
          everything: { type: "stdio", command: process.execPath, args: [EVERYTHING, "stdio"] },
          slow: {
            type: "stdio",
            command: process.execPath,
            args: ["--import", "tsx", FIXTURE],
            cwd: PROJECT_ROOT,
            env: { FIXTURE_WAIT_FOR: gate, FIXTURE_WAIT_MS: String(TEST_TIMEOUT_MS) },
          },
        },
      },
      "downcity.mcp.startTimeoutSeconds": TEST_TIMEOUT_MS / 1000,
      "downcity.rules.files": ["CLAUDE.md"],
    });

    await step(
      "01 MCP Servers: Start on everything brings the list back, and its row goes to running live",
      async () => {
        await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
        await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
        // The chat view loaded means the extension is active and its commands are in the palette.
        await page
          .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
          .click({ timeout: 60_000 });
        await chat().getByRole("button", { name: "New Session", exact: true }).waitFor({ timeout: 60_000 });
        await runPaletteCommand(page, "Downcity: MCP Servers", 60_000);
        await row(page, "everything").filter({ hasText: "stopped" }).waitFor({ timeout: 30_000 });
        await row(page, "slow").filter({ hasText: "stopped" }).waitFor({ timeout: 30_000 });
        await row(page, "everything").click();
        await row(page, "Start").click({ timeout: 30_000 });
        // The same list, open again, changes under the user's eyes: starting, then running.
        await row(page, "everything")
          .filter({ hasText: /running · \d+ tools/ })
          .waitFor({ timeout: 60_000 });
        assert.match(await page.locator(".quick-input-widget .quick-input-title").innerText(), /Downcity: MCP Servers/);
        await page.keyboard.press("Escape");
      },
    );

    await step(
      "02 the first run does not wait for the hanging server: the chat says so; the image call waits on its card",
      async () => {
        await chat().getByRole("button", { name: "New Session", exact: true }).click({ timeout: 60_000 });
        await chat()
          .getByRole("textbox", { name: "Message", exact: true })
          .fill("Show me the tiny image.", { timeout: 60_000 });
        await chat().getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
        await chat()
          .locator(".notice", { hasText: 'MCP server "slow" is still starting after 3 s' })
          .waitFor({ timeout: 60_000 });
        const body = await model.request(0, "the first request");
        const names: string[] = (body.tools ?? []).map((x: { function: { name: string } }) => x.function.name);
        assert.ok(names.includes(IMAGE_TOOL), names.join(", "));
        assert.ok(!names.some((n) => n.startsWith("mcp__slow__")), "the slow server's tools are not offered yet");
        await card(chat(), 0, "waiting for approval")
          .getByRole("button", { name: "Always allow", exact: true })
          .waitFor({ timeout: 60_000 });
      },
    );

    await step("03 Always allow on the card: the call runs and its image is drawn in the card", async () => {
      await card(chat(), 0, "waiting for approval")
        .getByRole("button", { name: "Always allow", exact: true })
        .click({ timeout: 30_000 });
      const done = card(chat(), 0, "done");
      await done.waitFor({ timeout: 60_000 });
      await done.locator(".tool-decision", { hasText: "always allowed in this folder" }).waitFor({ timeout: 30_000 });
      // The choice was written before the call ran: in the extension's storage, for this folder and tool.
      assert.deepEqual(
        trustFiles(workbench.server.userDataDir).map((f) => f.doc.always),
        [[{ folder: realpathSync(workspace), server: "everything", tool: "get-tiny-image" }]],
      );
      const img = done.getByRole("img", { name: "Image 1 of the result (image/png)", exact: true });
      await img.waitFor({ timeout: 30_000 });
      // Checked frame by frame on the image found each time: the card re-renders as the turn goes on.
      const drawn = await untilElement(
        img,
        (e: HTMLImageElement) =>
          !e.src.startsWith("blob:")
            ? `the image is not a blob URL: ${e.src}`
            : e.complete && e.naturalWidth > 0
              ? true
              : `the image ${e.complete ? "did not decode" : "is loading"}: ${e.src}`,
        30_000,
      );
      assert.equal(drawn, true, `the PNG is not drawn: ${drawn}`);
      assert.doesNotMatch(await done.innerText(), /\[image image\/png\]/);
      await chat()
        .locator('article.message.assistant[aria-label="Assistant"]', { hasText: "Here is the image." })
        .last()
        .waitFor({ timeout: 60_000 });
    });

    await step(
      "04 MCP Servers while the slow server hangs: released on disk, its row goes to running live",
      async () => {
        await runPaletteCommand(page, "Downcity: MCP Servers");
        await row(page, "slow").filter({ hasText: "starting" }).waitFor({ timeout: 30_000 });
        writeFileSync(gate, "go");
        await row(page, "slow")
          .filter({ hasText: /running · \d+ tools/ })
          .waitFor({ timeout: 60_000 });
        await page.keyboard.press("Escape");
      },
    );

    await step(
      "05 the next call runs with no approval card; the slow server's tools join this run, said in the chat",
      async () => {
        await chat()
          .getByRole("textbox", { name: "Message", exact: true })
          .fill("Once more, please.", { timeout: 30_000 });
        await chat().getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
        const done = card(chat(), 1, "done");
        await done.waitFor({ timeout: 60_000 });
        await done.locator(".tool-decision", { hasText: "always allowed in this folder" }).waitFor({ timeout: 30_000 });
        await done.getByRole("img", { name: "Image 1 of the result (image/png)", exact: true }).waitFor();
        await chat().locator(".notice", { hasText: 'MCP server "slow" is ready' }).waitFor({ timeout: 30_000 });
        const body = await model.request(2, "the second run's request");
        const names: string[] = (body.tools ?? []).map((x: { function: { name: string } }) => x.function.name);
        assert.ok(names.includes("mcp__slow__ok"), names.join(", "));
        await chat()
          .locator('article.message.assistant[aria-label="Assistant"]', { hasText: "Here it is again." })
          .last()
          .waitFor({ timeout: 60_000 });
        // On disk: both approvals are the user's "always", the second never asked.
        const approvals = approvalsOnDisk(join(workspace, ".downcity"));
        assert.deepEqual(approvals.get("call_img1"), { decision: "approved", by: "user", scope: "always" });
        assert.deepEqual(approvals.get("call_img2"), { decision: "approved", by: "user", scope: "always" });
        assert.equal(
          await chat().getByRole("button", { name: "Approve", exact: true }).count(),
          0,
          "no approval card was shown",
        );
      },
    );

    await step("06 a rules file written on disk shows as a chip at once, with no turn", async () => {
      const group = chat().getByRole("group", { name: "Rules files" });
      await group.getByRole("button", { name: "Open rules file AGENTS.md" }).waitFor({ timeout: 30_000 });
      assert.equal(await group.getByRole("button").count(), 1);
      let later = false;
      void model.request(4, "none expected").then(
        () => (later = true),
        () => undefined,
      );
      writeFileSync(join(workspace, "CLAUDE.md"), "# Claude rules\n\nUse tabs.\n");
      await group.getByRole("button", { name: "Open rules file CLAUDE.md" }).waitFor({ timeout: 30_000 });
      assert.equal(await group.getByRole("button").count(), 2);
      assert.equal(later, false, "no model request: no turn ran");
    });

    await step("07 after a window reload, MCP Servers still shows get-tiny-image always allowed", async () => {
      await page.reload();
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      // The chat restored (the extension is active again, with a fresh McpServers).
      await chat().getByRole("textbox", { name: "Message", exact: true }).waitFor({ timeout: 60_000 });
      await runPaletteCommand(page, "Downcity: MCP Servers", 60_000);
      await row(page, "everything").click({ timeout: 30_000 });
      await row(page, "get-tiny-image").filter({ hasText: "always allowed" }).waitFor({ timeout: 30_000 });
      await page.keyboard.press("Escape");
    });
  },
);

/** The image tool's cards in the order of the calls: 0 is the first run's, 1 the second's. */
const card = (chat: FrameLocator, index: number, status: string) =>
  chat
    .locator("section.tool-card")
    .nth(index)
    .and(chat.getByRole("group", { name: `Tool ${IMAGE_TOOL}: ${status}` }));
const row = (page: Page, text: string) =>
  page.locator(".quick-input-widget .monaco-list-row", { hasText: text }).first();

/** The tool/approval events of every session log under `.downcity/`, by tool call id. */
function approvalsOnDisk(dir: string): Map<string, { decision: string; by: string; scope?: string }> {
  const found = new Map<string, { decision: string; by: string; scope?: string }>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name !== "active.jsonl") continue;
    for (const line of readFileSync(join(entry.parentPath, entry.name), "utf8").split("\n")) {
      if (!line.includes('"tool/approval"')) continue;
      const event = JSON.parse(line) as { type: string; data: Record<string, string> };
      const { toolCallId, decision, by, scope } = event.data;
      found.set(toolCallId!, { decision: decision!, by: by!, ...(scope ? { scope } : {}) });
    }
  }
  return found;
}
