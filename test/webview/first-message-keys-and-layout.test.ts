// Issue 19 items 1, 5, 6, 7 in the real chat bundle (Chromium, the extension's CSP): the
// first message with no session open, the agent picker, the chat's keys, narrow widths,
// plain words, the meter, Copy and Jump to latest.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Page } from "playwright-core";
import type { ChatSnapshot } from "../../core/protocol";
import {
  assistantEv,
  CONFIG,
  conversation,
  ev,
  helloWith,
  REF,
  skipReason,
  snapshot,
  useChat,
  userEv,
} from "../support/webview/harness";

const open = useChat();

const emptySnapshot = (agentId = "code", sessionId = "s-new"): ChatSnapshot => ({
  ref: { ...REF, agentId, sessionId },
  folderName: "ws",
  running: false,
  page: { events: [], firstSeq: 1, lastSeq: 0, hasOlder: false },
  pendingApprovals: [],
});

test(
  "with no session open, Enter starts a session of the chosen agent and sends the message once",
  { skip: skipReason },
  async (t) => {
    const { page, host } = await open(t, (host) => {
      helloWith(undefined)(host)
        .on("newSession", ({ agentId }) => emptySnapshot(agentId ?? "code"))
        .on("prompt", () => ({ steered: false }));
      host.hold.add("newSession");
    });
    const box = page.getByRole("textbox", { name: "Message", exact: true });
    await page.getByRole("button", { name: "New Session", exact: true }).waitFor();
    assert.equal(await box.isEnabled(), true, "the message box takes input with no session open");
    await page.getByRole("combobox", { name: "Agent" }).selectOption("ask");
    await box.fill("What does this workspace do?");
    await box.press("Enter");
    await host.waitFor("newSession");
    // While the session starts, a second Enter (or Send) must not start or send another.
    await box.press("Enter");
    await page.getByRole("button", { name: "Send", exact: true }).click({ force: true });
    await host.release("newSession");
    await host.waitFor("prompt");
    await host.frames();
    assert.equal(host.count("newSession"), 1, "one session started");
    assert.equal(host.count("prompt"), 1, "the message sent once");
    assert.equal(host.sent.find((s) => s.method === "newSession")!.params.agentId, "ask", "the picker's agent");
    assert.deepEqual(host.sent.find((s) => s.method === "prompt")!.params, {
      ref: { ...REF, agentId: "ask", sessionId: "s-new" },
      text: "What does this workspace do?",
    });
    assert.equal(await box.inputValue(), "");
    assert.equal(
      await page.getByRole("button", { name: "New session", exact: true }).count(),
      1,
      "the header's New session stays",
    );
  },
);

test("a first message that cannot start a session stays in the box", { skip: skipReason }, async (t) => {
  const { page, host } = await open(t, (host) =>
    helloWith(undefined)(host).on("newSession", () => ({ error: "Open a folder to start a session." })),
  );
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("Keep me");
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await host.waitFor("newSession");
  await page.getByText("Open a folder to start a session.").waitFor();
  assert.equal(await box.inputValue(), "Keep me");
  assert.equal(host.count("prompt"), 0);
});

test(
  "the agent picker asks before a new session replaces a conversation, and the header follows",
  { skip: skipReason },
  async (t) => {
    const snap = snapshot(conversation(1, 4), { title: "Inventory questions" });
    const { page, host } = await open(t, (host) =>
      helloWith(snap)(host).on("newSession", ({ agentId }) => emptySnapshot(agentId)),
    );
    const picker = page.getByRole("combobox", { name: "Agent" });
    await page.getByRole("button", { name: /Session title: Inventory questions/ }).waitFor();
    await picker.selectOption("ask");
    const ask = page.getByRole("alertdialog", { name: "Change agent" });
    await ask.waitFor();
    assert.match(
      await ask.innerText(),
      /Ask works in its own sessions, so this conversation stays with Code\. Start a new Ask session\?/,
    );
    await ask.getByRole("button", { name: "Keep This Session" }).click();
    await ask.waitFor({ state: "detached" });
    assert.equal(await picker.inputValue(), "code", "kept: the picker shows the open session's agent");
    assert.equal(host.count("newSession"), 0);
    await page.getByText("Question 1:").waitFor();

    // Escape in the question is "keep" too.
    await picker.selectOption("ask");
    await ask.waitFor();
    await ask.getByRole("button", { name: "Start New Session" }).focus();
    await page.keyboard.press("Escape");
    await ask.waitFor({ state: "detached" });

    await picker.selectOption("ask");
    await ask.getByRole("button", { name: "Start New Session" }).click();
    await host.waitFor("newSession");
    assert.equal(host.sent.find((s) => s.method === "newSession")!.params.agentId, "ask");
    // The header shows the session now open, not the old title.
    await page.getByRole("button", { name: /Session title: New session/ }).waitFor();
    assert.equal(await picker.inputValue(), "ask");
  },
);

test("an empty session takes the picked agent on its first message without asking", { skip: skipReason }, async (t) => {
  const { page, host } = await open(t, (host) =>
    helloWith(emptySnapshot("code", "s-empty"))(host)
      .on("newSession", ({ agentId }) => emptySnapshot(agentId, "s-ask"))
      .on("prompt", () => ({ steered: false })),
  );
  await page.getByRole("combobox", { name: "Agent" }).selectOption("ask");
  assert.equal(await page.getByRole("alertdialog").count(), 0, "nothing to lose: no question");
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Explain the tests");
  await page.keyboard.press("Enter");
  await host.waitFor("prompt");
  assert.equal(host.sent.find((s) => s.method === "newSession")!.params.agentId, "ask");
  assert.equal(host.sent.find((s) => s.method === "prompt")!.params.ref.sessionId, "s-ask");
});

test(
  "Escape stops a run (not while closing the file suggestions); Tab from Send stays in the chat",
  { skip: skipReason },
  async (t) => {
    const snap = snapshot(conversation(1, 2), { running: true });
    const chat = await open(t, (host) =>
      helloWith(snap)(host)
        .on("cancel", () => ({}))
        .on("searchMentions", () => ["src/inventory.ts"]),
    );
    const { page, host } = chat;
    const box = page.getByRole("textbox", { name: "Message", exact: true });
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await box.click();
    await page.keyboard.type("look at @inv");
    await page.getByRole("option", { name: "src/inventory.ts" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByRole("listbox").waitFor({ state: "detached" });
    await host.frames();
    assert.equal(host.count("cancel"), 0, "the first Escape closed the suggestions only");
    await page.keyboard.press("Escape");
    await host.waitFor("cancel");
    assert.deepEqual(host.sent.find((s) => s.method === "cancel")!.params, { ref: REF });

    // Tab from the last control (Send) goes back to the first one of the chat, Shift+Tab the other way.
    await page.getByRole("button", { name: "Send", exact: true }).focus();
    await page.keyboard.press("Tab");
    const first = await page.evaluate(
      () => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent,
    );
    assert.match(String(first), /Session title/, `Tab from Send went to ${first}`);
    await page.keyboard.press("Shift+Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), "Send");
  },
);

/** Per control of the composer bar and header: its box; and every word of the page's labels that a line break splits. */
function layout(page: Page) {
  return page.evaluate(() => {
    const boxes = Array.from(document.querySelectorAll<HTMLElement>(".composer-bar > *, .chat-header > *"))
      .filter((el) => el.getClientRects().length)
      .map((el) => ({
        name: el.getAttribute("aria-label") ?? el.textContent!.trim(),
        top: Math.round(el.getBoundingClientRect().top),
        bottom: Math.round(el.getBoundingClientRect().bottom),
      }));
    const broken: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (node.parentElement?.closest("pre, textarea, select")) continue;
      for (const m of node.textContent!.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index!);
        range.setEnd(node, m.index! + m[0].length);
        // A word split across two lines has two boxes at different heights.
        const tops = new Set(
          Array.from(range.getClientRects())
            .filter((r) => r.width > 0)
            .map((r) => Math.round(r.top)),
        );
        if (tops.size > 1) broken.push(m[0]);
      }
    }
    return { boxes, broken, overflow: document.documentElement.scrollWidth - document.documentElement.clientWidth };
  });
}

for (const width of [300, 250]) {
  test(`at ${width} px the composer bar is one line and no word breaks`, { skip: skipReason }, async (t) => {
    const events = [
      userEv(1, "Where are the restocking rules documented?"),
      assistantEv(2, "In the inventory module: restocking thresholds, supplier lead times and reorder quantities.", [
        {
          type: "tool-call",
          id: "call-run",
          name: "run_command",
          arguments: { command: "echo releasing > released.txt" },
        },
      ]),
      ev(3, "tool/approval", { toolCallId: "call-run", decision: "approved", by: "user", scope: "once" }),
      ev(4, "tool/result", {
        toolCallId: "call-run",
        toolName: "run_command",
        content: [{ type: "text", text: "exit code 0" }],
        details: { kind: "command", command: "echo releasing > released.txt", cwd: ".", exitCode: 0 },
      }),
    ];
    const snap = snapshot(events, {
      running: true,
      title: "Restocking thresholds and supplier lead times",
      usage: {
        type: "usage",
        sessionId: REF.sessionId,
        agentId: REF.agentId,
        usage: { inputTokens: 1200, outputTokens: 300 },
        contextWindow: 128_000,
        ratio: 0.0117,
      },
    });
    const { page } = await open(
      t,
      (host) =>
        host.on("hello", () => ({
          config: { ...CONFIG, models: [{ provider: "local-server", model: "qwen2.5-coder-32b-instruct" }] },
          snapshot: snap,
        })),
      { viewport: { width, height: 600 } },
    );
    await page.getByRole("button", { name: "Stop" }).waitFor();
    await page.screenshot({ path: `test/.out/webview/first-width-${width}.png` });
    const { boxes, broken, overflow } = await layout(page);
    const bar = boxes.filter((b) => ["Agent", "Model", "Context used", "Stop", "Send"].includes(b.name));
    assert.equal(bar.length, 5, JSON.stringify(boxes));
    const rows = new Set(bar.map((b) => b.top));
    assert.ok(
      Math.max(...bar.map((b) => b.top)) < Math.min(...bar.map((b) => b.bottom)),
      `the bar wraps at ${width} px: ${JSON.stringify(bar)} (${rows.size} tops)`,
    );
    assert.deepEqual(broken, [], `words broken mid-word at ${width} px`);
    // A command card's "in ." stays on one line beside its command (the command wraps instead).
    const cwd = page.locator(".tool-command .cwd");
    await cwd.waitFor();
    const cwdTops = await cwd.evaluate((el) => {
      // A flex item is one box: its text's line boxes tell how many lines it takes.
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
    });
    assert.equal(cwdTops, 1, `the command's folder label takes ${cwdTops} lines at ${width} px`);
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
  });
}

test(
  "plain words, the meter always shown with a quiet note for an assumed window, Copy says Copied",
  { skip: skipReason },
  async (t) => {
    const events = [
      userEv(1, "Show me the code"),
      ev(2, "assistant/message", {
        content: [
          { type: "text", text: "Here:\n\n```ts\nconst a = 1;\n```" },
          { type: "tool-call", id: "r1", name: "read_file", arguments: { path: "a.ts" } },
        ],
      }),
      ev(3, "tool/approval", { toolCallId: "r1", decision: "approved", by: "policy" }, false),
      ev(4, "tool/result", { toolCallId: "r1", content: [{ type: "text", text: "const a = 1;" }] }),
    ];
    const snap = snapshot(events);
    const { page, host } = await open(t, (host) => helloWith(snap)(host).on("copy", () => ({})));
    const meter = page.getByRole("meter", { name: "Context used" });
    await meter.waitFor();
    assert.match((await meter.textContent())!, /0%/, "shown before any usage");
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: {
        type: "usage",
        sessionId: REF.sessionId,
        agentId: REF.agentId,
        usage: { inputTokens: 16_000, outputTokens: 384 },
        contextWindow: 32_768,
        ratio: 0.5,
        windowAssumed: true,
      },
    });
    await page.locator(".meter-text", { hasText: "50%" }).waitFor();
    const tip = (await meter.getAttribute("title"))!;
    assert.match(tip, /16,384 of 32,768 tokens \(50%\)/);
    assert.match(tip, /context window is unknown, so 32,768 tokens is assumed/);
    assert.equal(await page.locator(".notice").count(), 0, "no banner");
    assert.doesNotMatch(await page.locator("body").innerText(), /DOWNCITY_CONTEXT_WINDOW|by policy|events \d/);

    await page
      .getByRole("group", { name: /Tool read_file/ })
      .locator("summary")
      .first()
      .click();
    await page.getByText("auto-approved (setting)").waitFor();

    await page.getByRole("button", { name: "Copy code" }).click();
    await host.waitFor("copy");
    await page.getByRole("button", { name: "Copied" }).waitFor();
    assert.equal(host.sent.find((s) => s.method === "copy")!.params.text, "const a = 1;\n");
  },
);

test("Jump to latest appears once scrolled up and goes back to the end", { skip: skipReason }, async (t) => {
  const snap = snapshot(conversation(1, 40));
  const { page } = await open(t, helloWith(snap), { viewport: { width: 420, height: 500 } });
  await page.getByText("Question 39:").waitFor();
  const jump = page.getByRole("button", { name: "Jump to latest" });
  assert.equal(await jump.count(), 0, "at the end: no button");
  await page.locator(".log-scroller").hover();
  await page.mouse.wheel(0, -3000);
  await jump.waitFor();
  await jump.click();
  await jump.waitFor({ state: "detached" });
  await page.getByText("Question 39:").waitFor();
  const gap = await page.evaluate(() => {
    const s = document.querySelector(".log-scroller")!;
    return s.scrollHeight - s.scrollTop - s.clientHeight;
  });
  assert.ok(gap <= 24, `back at the end (${gap} px left)`);
});
