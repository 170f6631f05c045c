// Issue 19 item 2, the third surface: a command asked about while no chat shows its session
// gets a notification, and its buttons answer the same decision the card would. In
// code-server with dist/downcity.vsix, the model played by the loopback provider: a run is
// started in one session, the chat moves to another before the model asks for the command,
// and the toast's Deny with Feedback… / Approve are clicked. The log, the model's next request
// and the card (once its session is shown again) agree. Screenshots in test/.tmp/e2e/approve-notification-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { startProviderServer, wire, type ScriptedReply } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  fileMatches,
  gotoWorkbench,
  logMatching,
  missingVsCode,
  openChatWorkbench,
  outputDir,
  switchTo,
  toolResult,
  installPackagedVsix,
} from "./helpers";

const DENY_PROMPT = "Run the release script.";
const APPROVE_PROMPT = "Write the build stamp.";
const DENY_COMMAND = "echo releasing > released.txt";
const APPROVE_COMMAND = "echo stamped > stamp.txt";
// Typed by the user, so untrusted: the markup must reach the model and the card as text.
const REASON = "Use the CI pipeline, not <b>local</b> releases";

const sse = (script: Parameters<typeof wire.openaiChat>[0]) =>
  wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, ...script });

/** A deferred the test resolves to let a held stream go on. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** The run_command call, held before its first frame until `until` is resolved (the chat moves away meanwhile). */
const heldCommand = (id: string, command: string, until: Promise<void>) => (): ScriptedReply => ({
  sse: sse({ toolCalls: [{ id, name: "run_command", arguments: { command } }] }),
  pauseAt: { frame: 0, until },
});
const answer = (text: string) => (): ScriptedReply => ({ sse: sse({ text }) });

test(
  "a command's notification answers its decision when no chat shows the session",
  { skip: missingVsCode(), timeout: 600_000 },
  async (t) => {
    const out = outputDir("approve-notification-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });

    const denyHeld = gate();
    const approveHeld = gate();
    const model = scriptedModel([
      heldCommand("call_release", DENY_COMMAND, denyHeld.promise), // #0, first session
      answer("Understood, I will not release locally."), // #1, after the denial
      heldCommand("call_stamp", APPROVE_COMMAND, approveHeld.promise), // #2, second session
      answer("The stamp is written."), // #3, after the approval
    ]);
    const provider = await startProviderServer(model.handler);
    t.after(() => provider.close());
    const { workbench, page, chat, step } = await openChatWorkbench(t, out, provider.baseURL);

    await step(
      "01 a run asks for a command after the chat moved to a new session: a notification asks instead",
      async () => {
        await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
        await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
        await page
          .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
          .click({ timeout: 60_000 });
        // The first message starts the session (no New Session first).
        await send(chat(), DENY_PROMPT);
        await model.request(0, "the release prompt", 60_000);
        await chat().getByRole("button", { name: "New session", exact: true }).click({ timeout: 60_000 });
        await chat().locator("article.message").first().waitFor({ state: "detached", timeout: 60_000 });
        denyHeld.open();
        await toast(page, DENY_COMMAND).waitFor({ timeout: 60_000 });
        for (const label of ["Approve", "Allow for this Session", "Deny", "Deny with Feedback…"])
          await toastButton(page, DENY_COMMAND, label).waitFor({ timeout: 10_000 });
      },
    );

    await step(
      "02 Deny with Feedback… on the toast, a reason typed: nothing runs, the model and the log get the reason",
      async () => {
        await toastButton(page, DENY_COMMAND, "Deny with Feedback…").click({ timeout: 30_000 });
        const input = page.locator(".quick-input-widget input");
        await input.waitFor({ timeout: 30_000 });
        assert.match(await page.locator(".quick-input-widget").innerText(), /Why deny: run `echo releasing/);
        await input.fill(REASON);
        await input.press("Enter");
        await toast(page, DENY_COMMAND).waitFor({ state: "detached", timeout: 30_000 });
        const result = toolResult(await model.request(1, "the answer after the denial", 60_000), "call_release");
        assert.match(result, /denied/);
        assert.ok(result.includes("<b>local</b>"), `the reason reaches the model as typed: ${result}`);
        await logMatching(
          workspace,
          DENY_PROMPT,
          (events) =>
            events.some(
              (e) =>
                e.type === "tool/approval" &&
                e.data.toolCallId === "call_release" &&
                e.data.decision === "denied" &&
                e.data.reason === REASON,
            ),
          60_000,
        );
        assert.equal(existsSync(join(workspace, "released.txt")), false, "the denied command never ran");
      },
    );

    await step("03 the denied session shown again: its card says denied with the reason, as text", async () => {
      await switchTo(chat(), DENY_PROMPT);
      const card = chat().getByRole("group", { name: "Tool run_command: refused", exact: true });
      await card.locator(".tool-decision", { hasText: `denied: ${REASON}` }).waitFor({ timeout: 60_000 });
      assert.equal(await card.locator(".tool-decision b").count(), 0, "the reason's markup is text");
      assert.equal(await card.getByRole("button", { name: "Approve", exact: true }).count(), 0);
      await chat()
        .locator('article.message.assistant[aria-label="Assistant"]', { hasText: "I will not release locally" })
        .waitFor({ timeout: 60_000 });
    });

    await step(
      "04 a run in a new session asks while the chat shows the first: Approve on the toast runs the command",
      async () => {
        await chat().getByRole("button", { name: "New session", exact: true }).click({ timeout: 60_000 });
        await chat().locator("article.message").first().waitFor({ state: "detached", timeout: 60_000 });
        await send(chat(), APPROVE_PROMPT);
        await model.request(2, "the stamp prompt", 60_000);
        await switchTo(chat(), DENY_PROMPT);
        approveHeld.open();
        await toastButton(page, APPROVE_COMMAND, "Approve").click({ timeout: 60_000 });
        await fileMatches(join(workspace, "stamp.txt"), /stamped/, 60_000);
        await toast(page, APPROVE_COMMAND).waitFor({ state: "detached", timeout: 30_000 });
        assert.doesNotMatch(
          toolResult(await model.request(3, "the answer after the approval", 60_000), "call_stamp"),
          /denied|refused/,
        );
        await logMatching(
          workspace,
          APPROVE_PROMPT,
          (events) =>
            events.some(
              (e) => e.type === "tool/approval" && e.data.toolCallId === "call_stamp" && e.data.decision === "approved",
            ) && events.some((e) => e.type === "tool/result" && e.data.toolCallId === "call_stamp"),
          60_000,
        );
      },
    );

    await step(
      "05 the approved session shown again: its card says approved and done, with the answer after",
      async () => {
        await switchTo(chat(), APPROVE_PROMPT);
        const card = chat().getByRole("group", { name: "Tool run_command: done", exact: true });
        await card.locator(".tool-decision", { hasText: /^approved$/ }).waitFor({ timeout: 60_000 });
        await chat()
          .locator('article.message.assistant[aria-label="Assistant"]', { hasText: "The stamp is written." })
          .waitFor({ timeout: 60_000 });
        assert.equal(readFileSync(join(workspace, "stamp.txt"), "utf8").trim(), "stamped");
      },
    );
  },
);

async function send(chat: FrameLocator, text: string): Promise<void> {
  await chat.getByRole("textbox", { name: "Message", exact: true }).fill(text, { timeout: 60_000 });
  await chat.getByRole("button", { name: "Send", exact: true }).click({ timeout: 60_000 });
}

/** The toast asking about `command` (VS Code shows it as "Downcity wants to run `…`"). */
const toast = (page: Page, command: string) =>
  page.locator(".notifications-toasts .notification-toast", { hasText: `Downcity wants to run \`${command}\`` });
const toastButton = (page: Page, command: string, label: string) =>
  toast(page, command).getByRole("button", { name: label, exact: true });
