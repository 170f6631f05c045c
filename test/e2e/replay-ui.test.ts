// Issue 20 items 1 and 3, issue 19 item 8, in the real workbench: dist/downcity.vsix in
// code-server, the provider given by DOWNCITY_* and played by the loopback server. Five
// sessions are driven through the chat's controls (a command stopped with Stop, a provider
// error answered with Retry, a steer sent while the answer streams, an edit approved on its
// card, a command run, an edit denied with feedback typed on its card, two plain answers compacted
// with Compact Now); then each is shown
// again after switching away and back, after a window reload, and after the extension
// host is SIGKILLed, and must show the same cards, outcomes and errors. A screenshot per
// step lands in test/.tmp/e2e/replay-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { FrameLocator, Locator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame, chatFrameElement, quickPickRow } from "../support/workbench/workbench";
import { startProviderServer, wire, type ScriptedReply } from "../support/provider-server";
import {
  gotoWorkbench,
  chainedSteps,
  extensionHostPid,
  fileMatches,
  logMatching,
  missingVsCode,
  openWorkbench,
  outputDir,
  runPaletteCommand,
  switchTo,
  withTimeout,
  installPackagedVsix,
} from "./helpers";

const COMMAND_PROMPT = "Run the slow build.";
const ERROR_PROMPT = "Are you there?";
const RETRY_ANSWER = "Yes, back after the retry.";
const STEER_PROMPT = "Explain the inventory module.";
const STEER = "Also mention the tests.";
const FIRST_ANSWER = "The inventory module tracks stock per SKU.";
const STEER_ANSWER = "The tests cover restock and removal.";
const EDIT_PROMPT = "Make restock change only the matching SKU.";
const EDIT_ANSWER = "Fixed restock.";
const OLD_LINE = "items.map((item) => ({ ...item, quantity: item.quantity + amount }))";
const NEW_LINE = "items.map((item) => (item.sku === sku ? { ...item, quantity: item.quantity + amount } : item))";
const RUN_PROMPT = "Run the quick check.";
const RUN_ANSWER = "The check passed.";
const DENY_PROMPT = "Rename the restock helper.";
const DENY_REASON = "Keep the name: <b>restock</b> is public API";
const DENY_ANSWER = "Understood, the name stays.";
const PLAIN_PROMPT = "Say hello.";
const PLAIN_ANSWERS = ["Hello.", "Hello again."];

function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

const sse = (script: Parameters<typeof wire.openaiChat>[0]) =>
  wire.openaiChat({ model: "gpt-4o", usage: { input: 120, output: 20 }, ...script });

test(
  "replayed chats equal live ones in the real workbench: switch, reload, SIGKILL",
  { skip: missingVsCode(), timeout: 420_000 },
  async (t) => {
    const out = outputDir("replay-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });

    const streamHeld = gate();
    const replies: ((body: any) => ScriptedReply)[] = [];
    const arrived: ((n: number) => void)[] = [];
    let count = 0;
    const provider = await startProviderServer(({ path, body }) => {
      if (path.endsWith("/models")) return { json: { object: "list", data: [{ id: "gpt-4o" }] } };
      const n = count++;
      for (const w of arrived.splice(0)) w(n);
      const reply = replies.shift();
      return reply ? reply(body) : wire.error("openai-chat", 400, `unexpected request #${n + 1}`);
    });
    t.after(() => provider.close());
    const requestsSoFar = (n: number, what: string) =>
      withTimeout(
        new Promise<void>((resolve) => {
          const check = () => (count >= n ? resolve() : arrived.push(check));
          check();
        }),
        30_000,
        what,
      );
    const port = new URL(provider.baseURL).port;

    const workbench = await openWorkbench(out, {
      env: { DOWNCITY_PROTOCOL: "openai-chat", DOWNCITY_BASE_URL: provider.baseURL, DOWNCITY_MODEL: "gpt-4o" },
      // Step 06's Compact Now closes every message before the newest answer (two turns are far under the window).
      settings: { "downcity.compaction.retainRatio": 0 },
    });
    t.after(() => workbench.close());
    const { page } = workbench;
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    const chat = () => chatFrame(page);
    const step = chainedSteps(t, workbench);

    await step("01 a command stopped with Stop shows cancelled", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 30_000 });
      await newSession(chat());
      replies.push(() => ({
        sse: sse({
          toolCalls: [{ id: "call_build", name: "run_command", arguments: { command: "echo started; sleep 60" } }],
        }),
      }));
      await send(chat(), COMMAND_PROMPT);
      const card = chat().getByRole("group", { name: /Tool run_command/ });
      await card.getByRole("button", { name: "Approve", exact: true }).click({ timeout: 30_000 });
      await chat().getByRole("group", { name: "Tool run_command: running" }).waitFor({ timeout: 30_000 });
      await chat().getByRole("button", { name: "Stop", exact: true }).click({ timeout: 10_000 });
      await chat().getByRole("group", { name: "Tool run_command: cancelled" }).waitFor({ timeout: 30_000 });
      // The log says cancelled, so a reopened card can too.
      await logMatching(workspace, COMMAND_PROMPT, (events) =>
        events.some((e) => e.type === "tool/result" && e.data.outcome === "cancelled"),
      );
    });

    await step(
      "02 a provider error is one line naming the server, with Retry and Open Settings; Retry answers without retyping",
      async () => {
        await newSession(chat());
        // Rate limited with a short retry-after: the loop retries four times, then the turn fails.
        for (let i = 0; i < 5; i++)
          replies.push(() =>
            wire.error("openai-chat", 429, "Rate limit reached for requests", { "retry-after-ms": "30" }),
          );
        await send(chat(), ERROR_PROMPT);
        const error = chat()
          .getByRole("alert")
          .filter({ hasText: `127.0.0.1:${port}` });
        await error.getByRole("button", { name: "Retry", exact: true }).waitFor({ timeout: 60_000 });
        assert.equal(await chat().locator(".notice.problem").count(), 1, "the retries are one line");
        await workbench.screenshot("02a-the-error");
        await error.getByRole("button", { name: "Open Settings", exact: true }).click();
        await page.locator(".tabs-container .tab", { hasText: "Settings" }).first().waitFor({ timeout: 30_000 });
        await workbench.screenshot("02b-open-settings");
        await page.keyboard.press("Control+W");
        replies.push(() => ({ sse: sse({ text: RETRY_ANSWER }) }));
        await error.getByRole("button", { name: "Retry", exact: true }).click({ timeout: 10_000 });
        await assistants(chat()).filter({ hasText: RETRY_ANSWER }).waitFor({ timeout: 30_000 });
        await chat().locator(".notice.problem .badge", { hasText: "retried" }).waitFor({ timeout: 10_000 });
        assert.equal(await chat().getByRole("button", { name: "Retry", exact: true }).count(), 0);
        assert.equal(await users(chat()).count(), 1, "Retry sent no second copy of the prompt");
        // One user message in the log, and the retry logged as a turn that retries the failed one.
        await logMatching(
          workspace,
          ERROR_PROMPT,
          (events) =>
            events.filter((e) => e.type === "user/message").length === 1 &&
            events.some((e) => e.type === "turn/start" && typeof e.data.retryOf === "number") &&
            events.at(-1)?.type === "turn/end",
        );
      },
    );

    await step("03 a steer shows at once as queued, then moves to where it was delivered", async () => {
      await newSession(chat());
      replies.push(() => ({ sse: sse({ text: FIRST_ANSWER }), pauseAt: { frame: 4, until: streamHeld.promise } }));
      replies.push(() => ({ sse: sse({ text: STEER_ANSWER }) }));
      await send(chat(), STEER_PROMPT);
      await requestsSoFar(8, "the streaming request");
      await chat().locator('article.message.assistant[aria-busy="true"]').waitFor({ timeout: 30_000 });
      await send(chat(), STEER);
      const queued = chat().getByRole("article", { name: "You (queued)" }).filter({ hasText: STEER });
      await queued.waitFor({ timeout: 5_000 });
      await queued.locator("time").waitFor();
      await workbench.screenshot("03a-queued");
      streamHeld.open();
      await assistants(chat()).filter({ hasText: STEER_ANSWER }).waitFor({ timeout: 30_000 });
      assert.equal(await queued.count(), 0, "the queued row moved");
      assert.deepEqual(await transcript(chat()), [
        `You:${STEER_PROMPT}`,
        `Assistant:${FIRST_ANSWER}`,
        `You steer:${STEER}`,
        `Assistant:${STEER_ANSWER}`,
      ]);
    });

    /** An edit's and a command's card as shown live: what each reopening must show again, text for text. */
    const cards = new Map<string, string>();

    await step("04 an edit approved on the card shows its inline diff and Open diff", async () => {
      await newSession(chat());
      replies.push(() => ({
        sse: sse({
          toolCalls: [
            {
              id: "call_edit",
              name: "edit_file",
              arguments: { path: "src/inventory.ts", edits: [{ oldText: OLD_LINE, newText: NEW_LINE }] },
            },
          ],
        }),
      }));
      replies.push(() => ({ sse: sse({ text: EDIT_ANSWER }) }));
      await send(chat(), EDIT_PROMPT);
      await chat()
        .getByRole("group", { name: "Tool edit_file: waiting for approval" })
        .getByRole("button", { name: "Approve", exact: true })
        .click({ timeout: 30_000 });
      await assistants(chat()).filter({ hasText: EDIT_ANSWER }).waitFor({ timeout: 30_000 });
      const card = chat().getByRole("group", { name: "Tool edit_file: done" });
      await card.locator(".tool-decision", { hasText: /^approved$/ }).waitFor({ timeout: 30_000 });
      await card.getByRole("button", { name: "Open diff", exact: true }).waitFor({ timeout: 10_000 });
      assert.match(await card.locator(".tool-edit .diff").innerText(), new RegExp(`\\+\\s*return ${escape(NEW_LINE)}`));
      cards.set(EDIT_PROMPT, await cardText(card));
    });

    await step("05 a command run shows its command, its output and how it ended", async () => {
      await newSession(chat());
      replies.push(() => ({
        sse: sse({
          toolCalls: [{ id: "call_check", name: "run_command", arguments: { command: "echo check passed" } }],
        }),
      }));
      replies.push(() => ({ sse: sse({ text: RUN_ANSWER }) }));
      await send(chat(), RUN_PROMPT);
      await chat()
        .getByRole("group", { name: /Tool run_command/ })
        .getByRole("button", { name: "Approve", exact: true })
        .click({ timeout: 30_000 });
      await assistants(chat()).filter({ hasText: RUN_ANSWER }).waitFor({ timeout: 30_000 });
      const card = chat().getByRole("group", { name: "Tool run_command: done" });
      await card.waitFor({ timeout: 30_000 });
      assert.match((await card.locator(".tool-output").textContent()) ?? "", /check passed/);
      cards.set(RUN_PROMPT, await cardText(card));
    });

    await step(
      "05b an edit denied with feedback on the card: the reason reaches the model, the log and the card",
      async () => {
        await newSession(chat());
        replies.push(() => ({
          sse: sse({
            toolCalls: [
              {
                id: "call_rename",
                name: "edit_file",
                arguments: {
                  path: "src/inventory.ts",
                  edits: [{ oldText: "export function restock(", newText: "export function addStock(" }],
                },
              },
            ],
          }),
        }));
        let toolResult = "";
        replies.push((body) => {
          const last = (body.messages as { role: string; content: unknown }[]).findLast((m) => m.role === "tool");
          toolResult = JSON.stringify(last?.content ?? "");
          return { sse: sse({ text: DENY_ANSWER }) };
        });
        await send(chat(), DENY_PROMPT);
        const pending = chat().getByRole("group", { name: "Tool edit_file: waiting for approval" });
        await pending.getByRole("button", { name: "Deny with feedback…", exact: true }).click({ timeout: 30_000 });
        const field = pending.getByRole("textbox", { name: "Reason for denying", exact: true });
        await field.fill(DENY_REASON, { timeout: 10_000 });
        await workbench.screenshot("05b-reason-typed");
        await field.press("Enter");
        await assistants(chat()).filter({ hasText: DENY_ANSWER }).waitFor({ timeout: 30_000 });
        const card = chat().getByRole("group", { name: "Tool edit_file: refused" });
        await card.locator(".tool-decision", { hasText: `denied: ${DENY_REASON}` }).waitFor({ timeout: 30_000 });
        assert.equal(await card.locator(".tool-decision b").count(), 0, "the reason shows as text");
        assert.ok(toolResult.includes(`the user denied this edit (edit_file): ${DENY_REASON}`), toolResult);
        await logMatching(workspace, DENY_PROMPT, (events) =>
          events.some(
            (e) =>
              e.type === "tool/approval" &&
              e.data.toolCallId === "call_rename" &&
              e.data.decision === "denied" &&
              e.data.reason === DENY_REASON,
          ),
        );
        cards.set(DENY_PROMPT, await cardText(card));
      },
    );

    /** The count Compact Now reported for the plain session. */
    let compacted = 0;
    const notice = (n: number) => chat().getByText(`Compacted ${n} message${n === 1 ? "" : "s"}`);

    await step(
      "06 two plain answers, then Compact Now from the palette: the chat's notice says the toast's count",
      async () => {
        await newSession(chat());
        for (const [i, text] of PLAIN_ANSWERS.entries()) {
          replies.push(() => ({ sse: sse({ text }) }));
          await send(chat(), i === 0 ? PLAIN_PROMPT : "Again, please.");
          await assistants(chat()).filter({ hasText: text }).waitFor({ timeout: 30_000 });
        }
        replies.push(() => ({ sse: sse({ text: "SUMMARY of the greetings." }) }));
        await runPaletteCommand(page, "Downcity: Compact Now", 30_000);
        await quickPickRow(page, PLAIN_PROMPT).click({ timeout: 30_000 });
        // Any outcome's toast (a failure or "Nothing to compact" too), so a wrong one fails with its text.
        const toast = page
          .locator(".notifications-toasts .notification-list-item", { hasText: PLAIN_PROMPT })
          .filter({ hasNotText: /compacting/ })
          .first();
        await toast.waitFor({ timeout: 60_000 });
        const text = await toast.innerText();
        compacted = Number(/Compacted (\d+) messages?/.exec(text)?.[1]);
        assert.ok(compacted > 0, `the toast: ${text}`);
        await notice(compacted).first().waitFor({ timeout: 30_000 });
        // The closed messages went to a segment: the session is found by its title, its active log holds compaction/end.
        const log = activeLogOf(workspace, PLAIN_PROMPT);
        await fileMatches(log, /"type":"compaction\/end"/, 30_000);
        const end = readFileSync(log, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { type: string; data: { closed?: number } })
          .find((e) => e.type === "compaction/end");
        assert.equal(end?.data.closed, compacted, `compaction/end ${JSON.stringify(end?.data)}`);
      },
    );

    /** What each session must show, however it was reopened. */
    const checks: [string, () => Promise<void>][] = [
      [
        EDIT_PROMPT,
        async () => {
          await assistants(chat()).filter({ hasText: EDIT_ANSWER }).waitFor({ timeout: 30_000 });
          const card = chat().getByRole("group", { name: "Tool edit_file: done" });
          await card.getByRole("button", { name: "Open diff", exact: true }).waitFor({ timeout: 30_000 });
          assert.equal(await cardText(card), cards.get(EDIT_PROMPT), "the edit's card as it was live");
        },
      ],
      [
        RUN_PROMPT,
        async () => {
          await assistants(chat()).filter({ hasText: RUN_ANSWER }).waitFor({ timeout: 30_000 });
          const card = chat().getByRole("group", { name: "Tool run_command: done" });
          await card.waitFor({ timeout: 30_000 });
          assert.equal(await cardText(card), cards.get(RUN_PROMPT), "the command's card as it was live");
        },
      ],
      [
        DENY_PROMPT,
        async () => {
          await assistants(chat()).filter({ hasText: DENY_ANSWER }).waitFor({ timeout: 30_000 });
          const card = chat().getByRole("group", { name: "Tool edit_file: refused" });
          await card.locator(".tool-decision", { hasText: `denied: ${DENY_REASON}` }).waitFor({ timeout: 30_000 });
          assert.equal(await cardText(card), cards.get(DENY_PROMPT), "the denied edit's card as it was live");
        },
      ],
      [
        PLAIN_PROMPT,
        async () => {
          // Reopened, the compacted part is behind Load earlier: the summary, the newest answer and the notice show.
          await assistants(chat()).filter({ hasText: PLAIN_ANSWERS[1] }).waitFor({ timeout: 30_000 });
          await notice(compacted).first().waitFor({ timeout: 30_000 });
          assert.equal(
            await chat()
              .getByText(/Compacted \d+ message/)
              .count(),
            1,
            "one notice, one count",
          );
        },
      ],
      [
        COMMAND_PROMPT,
        async () => {
          await chat().getByRole("group", { name: "Tool run_command: cancelled" }).waitFor({ timeout: 30_000 });
          assert.equal(
            await chat().getByRole("group", { name: "Tool run_command: failed" }).count(),
            0,
            "a stopped command never turns into failed",
          );
        },
      ],
      [
        ERROR_PROMPT,
        async () => {
          await assistants(chat()).filter({ hasText: RETRY_ANSWER }).waitFor({ timeout: 30_000 });
          const error = chat().locator(".notice.problem");
          assert.equal(await error.count(), 1);
          assert.match(await error.innerText(), new RegExp(`127\\.0\\.0\\.1:${port}`));
          await error.locator(".badge", { hasText: "retried" }).waitFor({ timeout: 5_000 });
          assert.equal(await users(chat()).count(), 1, "one user message: the failed turn was retried, not retyped");
        },
      ],
      [
        STEER_PROMPT,
        async () => {
          await assistants(chat()).filter({ hasText: STEER_ANSWER }).waitFor({ timeout: 30_000 });
          assert.deepEqual(await transcript(chat()), [
            `You:${STEER_PROMPT}`,
            `Assistant:${FIRST_ANSWER}`,
            `You steer:${STEER}`,
            `Assistant:${STEER_ANSWER}`,
          ]);
        },
      ],
    ];
    const checkAll = async (when: string) => {
      for (const [title, check] of checks) {
        await switchTo(chat(), title);
        await check();
        await workbench.screenshot(`${when}-${title.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}`);
      }
    };

    await step("07 after switching away and back each session shows the same", () => checkAll("07"));

    await step("08 after a window reload each session shows the same", async () => {
      await page.reload();
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncity(page);
      await checkAll("09");
    });

    await step("09 after the extension host is SIGKILLed each session shows the same", async () => {
      process.kill(extensionHostPid(workbench.server.process.pid!), "SIGKILL");
      await page.reload();
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await openDowncity(page);
      await checkAll("09");
    });
  },
);

async function openDowncity(page: Page): Promise<void> {
  await page.locator(".part.statusbar .statusbar-item", { hasText: "gpt-4o" }).first().waitFor({ timeout: 60_000 });
  await runPaletteCommand(page, "Focus on Chat View", 30_000);
  await chatFrameElement(page).waitFor({ timeout: 30_000 });
}

async function newSession(chat: FrameLocator): Promise<void> {
  const before = await chat.locator("article.message").count();
  const empty = chat.getByRole("button", { name: "New Session", exact: true });
  if (await empty.isVisible().catch(() => false)) await empty.click();
  else await chat.getByRole("button", { name: "New session", exact: true }).click({ timeout: 30_000 });
  if (before > 0) await chat.locator("article.message").first().waitFor({ state: "detached", timeout: 30_000 });
}

async function send(chat: FrameLocator, text: string): Promise<void> {
  const box = chat.getByRole("textbox", { name: "Message", exact: true });
  await box.fill(text, { timeout: 30_000 });
  await chat.getByRole("button", { name: "Send", exact: true }).click({ timeout: 10_000 });
}

/** A tool card's parts as text (its collapsed output included): the command and how it ended, the edit's diff, the decision. */
async function cardText(card: Locator): Promise<string> {
  return card.evaluate((el) =>
    [".tool-command", ".tool-edit", ".tool-decision", ".tool-message", ".tool-output"]
      .map((part) => `${part}: ${el.querySelector(part)?.textContent?.trim() ?? "–"}`)
      .join("\n"),
  );
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const assistants = (chat: FrameLocator) => chat.locator('article.message.assistant[aria-label="Assistant"]');
const users = (chat: FrameLocator) => chat.locator('article.message.user[aria-label="You"]');

/** The messages top to bottom: who (with a steer's badge) and their text. */
async function transcript(chat: FrameLocator): Promise<string[]> {
  return chat.locator("article.message").evaluateAll((articles) =>
    articles.map((a) => {
      const who = a.querySelector(".who")?.textContent ?? "";
      const badge = a.querySelector(".message-head .badge")?.textContent;
      const text = a.classList.contains("user")
        ? (a.querySelector(".user-text")?.textContent ?? "")
        : (a.querySelector(".markdown")?.textContent ?? "").trim();
      return `${who}${badge ? ` ${badge}` : ""}:${text}`;
    }),
  );
}

/** The active log of the session titled `title`. */
function activeLogOf(workspace: string, title: string): string {
  const dir = join(workspace, ".downcity", "agents", "code", "sessions");
  const id = readdirSync(dir).find((name) => {
    const meta = join(dir, name, "meta.json");
    return existsSync(meta) && (JSON.parse(readFileSync(meta, "utf8")) as { title?: string }).title === title;
  });
  assert.ok(id, `a session titled "${title}"`);
  return join(dir, id, "messages", "active.jsonl");
}
