// Issue 19 items 5 and 7 in the real workbench (dist/downcity.vsix in code-server, the model
// played by the loopback provider server, configured as a `downcity.providers` profile with no
// contextWindow and no DOWNCITY_* environment):
//   - the Downcity container opens with the chat taking most of its height and the Sessions view
//     small; a mouse drag of the divider between them grows Sessions by the dragged amount, and
//     the chat still answers;
//   - the context meter is shown, and its tooltip says once that the window is unknown and
//     32,768 tokens is assumed; no banner names DOWNCITY_CONTEXT_WINDOW;
//   - picking another agent in a conversation asks; Keep This Session keeps the transcript, the
//     header, the picker's agent and the session (the next message lands in it, no new session
//     on disk); picking another agent in an empty session applies to its first message;
//   - the Settings editor shows the compaction knobs under Downcity › Advanced, in plain words.
// A screenshot per step lands in test/.tmp/e2e/first5-layout-ui/.
import { strict as assert } from "node:assert";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { Locator, Page } from "playwright-core";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { sessionPaths } from "../../core/storage";
import { startProviderServer, wire } from "../support/provider-server";
import { scriptedModel } from "../support/scripted-model";
import {
  dirHolds,
  fileMatches,
  gotoWorkbench,
  missingVsCode,
  openChatWorkbench,
  outputDir,
  runPaletteCommandUntil,
  installPackagedVsix,
} from "./helpers";

/** A model no built-in table knows: its window is unknown unless the profile or the environment names one. */
const MODEL = "restock-local-7b";
const FIRST_PROMPT = "Plan the restock rule.";
const FIRST_ANSWER = "Restock when the level falls under the threshold.";
const KEPT_PROMPT = "And the threshold itself?";
const KEPT_ANSWER = "The threshold is ten units per SKU.";
const ASK_PROMPT = "Explain the inventory tests.";
const ASK_ANSWER = "The tests check the restock rule.";
/** How far the divider above Sessions is dragged up. */
const DRAG = 150;

const sse = (text: string) => wire.openaiChat({ model: MODEL, usage: { input: 1200, output: 20 }, text });

function sessionIds(workspace: string, agentId: string): string[] {
  const dir = join(workspace, ".downcity", "agents", agentId, "sessions");
  return existsSync(dir) ? readdirSync(dir) : [];
}

/** Every session folder under .downcity/agents/*\/sessions/, as "agent/id". */
function allSessions(workspace: string): string[] {
  const agents = join(workspace, ".downcity", "agents");
  if (!existsSync(agents)) return [];
  return readdirSync(agents).flatMap((agent) => sessionIds(workspace, agent).map((id) => `${agent}/${id}`));
}

/** The Downcity container's pane (Chat or Sessions) by its header. */
const pane = (page: Page, name: RegExp) =>
  page.locator(".part.sidebar .pane", { has: page.locator(".pane-header", { hasText: name }) }).first();

async function box(locator: Locator, what: string) {
  const b = await locator.boundingBox();
  assert.ok(b, `${what} is on screen`);
  return b;
}

test(
  "layout and words in the real workbench: the Sessions divider, the unknown-window meter, Keep This Session, Settings › Advanced",
  { skip: missingVsCode(), timeout: 500_000 },
  async (t) => {
    const out = outputDir("first5-layout-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });

    const model = scriptedModel([
      () => ({ sse: sse(FIRST_ANSWER) }),
      () => ({ sse: sse(KEPT_ANSWER) }),
      () => ({ sse: sse(ASK_ANSWER) }),
    ]);
    // Only the chat completions are the script's: a model list or a server probe is answered apart.
    const provider = await startProviderServer((req) =>
      req.method === "POST" && req.path.endsWith("/chat/completions")
        ? model.handler(req)
        : req.path.endsWith("/models")
          ? { json: { object: "list", data: [{ id: MODEL, object: "model" }] } }
          : { status: 404, json: { error: { message: "not found" } } },
    );
    t.after(() => provider.close());
    const { workbench, page, chat, step } = await openChatWorkbench(t, out, provider.baseURL, {
      "downcity.providers": [{ id: "loopback", protocol: "openai-chat", baseURL: provider.baseURL, model: MODEL }],
    });
    const input = () => chat().getByRole("textbox", { name: "Message", exact: true });
    const picker = () => chat().getByRole("combobox", { name: "Agent", exact: true });
    const chatPane = () => pane(page, /^\s*chat/i);
    const sessionsPane = () => pane(page, /^\s*sessions/i);
    let sessionId = "";
    let before = { chat: 0, sessions: 0 };

    await step("01 on first open the chat takes most of the container, the Sessions view starts small", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      // 60 s: a loop at load 36 found the icon in the page but not yet clickable 30 s after the activity bar showed.
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 60_000 });
      await input().waitFor({ timeout: 60_000 });
      const sidebar = await box(page.locator(".part.sidebar"), "the sidebar");
      const c = await box(chatPane(), "the Chat pane");
      const s = await box(sessionsPane(), "the Sessions pane");
      before = { chat: c.height, sessions: s.height };
      assert.ok(c.y < s.y, "the chat is above Sessions");
      assert.ok(
        c.height >= 0.6 * sidebar.height,
        `the chat is ${c.height} px of the ${sidebar.height} px container, not most of it`,
      );
      assert.ok(
        s.height <= 0.3 * sidebar.height,
        `Sessions is ${s.height} px of the ${sidebar.height} px container, not small`,
      );
      assert.ok(c.height >= 3 * s.height, `the chat (${c.height} px) is several times Sessions (${s.height} px)`);
    });

    await step("02 dragging the divider up grows Sessions by the dragged amount; the chat still answers", async () => {
      const s = await box(sessionsPane(), "the Sessions pane");
      // The divider is the sash on the Sessions pane's top edge.
      const sash = page
        .locator(".part.sidebar .monaco-sash.horizontal")
        .filter({ visible: true })
        .evaluateAll(
          (sashes, top) =>
            sashes
              .map((el) => el.getBoundingClientRect())
              .map((r) => ({ x: r.x + r.width / 2, y: r.y + r.height / 2, width: r.width }))
              .filter((r) => r.width > 0 && Math.abs(r.y - top) <= 4),
          s.y,
        );
      const found = await sash;
      assert.equal(found.length, 1, `one divider on the Sessions pane's top edge (y ${s.y}): ${JSON.stringify(found)}`);
      const { x, y } = found[0]!;
      await page.mouse.move(x, y);
      await page.mouse.down();
      await page.mouse.move(x, y - DRAG / 2, { steps: 5 });
      await page.mouse.move(x, y - DRAG, { steps: 5 });
      await page.mouse.up();
      const c = await box(chatPane(), "the Chat pane");
      const after = await box(sessionsPane(), "the Sessions pane");
      const grew = after.height - before.sessions;
      assert.ok(Math.abs(grew - DRAG) <= 8, `Sessions grew by ${grew} px for a ${DRAG} px drag`);
      assert.ok(
        Math.abs(before.chat - c.height - DRAG) <= 8,
        `the chat shrank by ${before.chat - c.height} px for a ${DRAG} px drag`,
      );
      await workbench.screenshot("02a-dragged");
      // The chat still works at its new height.
      await input().click();
      await input().fill(FIRST_PROMPT);
      await input().press("Enter");
      await chat().locator("article.message.assistant", { hasText: FIRST_ANSWER }).waitFor({ timeout: 30_000 });
      const ids = await dirHolds(join(workspace, ".downcity", "agents", "code", "sessions"), 1, 30_000);
      assert.equal(ids.length, 1, `one session on disk: ${ids.join(", ")}`);
      sessionId = ids[0]!;
      await fileMatches(sessionPaths(workspace, "code", sessionId).active, /Restock when the level/, 30_000);
      const i = await box(input(), "the message box");
      const p = await box(chatPane(), "the Chat pane");
      assert.ok(i.y + i.height <= p.y + p.height + 1, "the message box is wholly inside the smaller chat");
    });

    await step("03 the meter shows, its tooltip says once that the window is unknown; no banner", async () => {
      const meter = chat().getByRole("meter", { name: "Context used" });
      await meter.waitFor({ timeout: 15_000 });
      assert.ok(await meter.isVisible(), "the meter is shown");
      await meter.hover();
      // The usage of the answer reached the meter: its tooltip measures against the assumed window.
      await chat().locator('[role="meter"][title*="tokens is assumed"]').waitFor({ timeout: 30_000 });
      const tooltip = (await meter.getAttribute("title")) ?? "";
      assert.match(tooltip, /of 32,768 tokens/);
      assert.equal(tooltip.match(/window is unknown/g)?.length, 1, `said once: ${tooltip}`);
      assert.equal(tooltip.match(/32,768 tokens is assumed/g)?.length, 1, `said once: ${tooltip}`);
      assert.doesNotMatch(tooltip, /DOWNCITY_CONTEXT_WINDOW/);
      await workbench.screenshot("03a-meter");
      // The turn has ended (its log says so): whatever it told the user is in the transcript by now.
      await fileMatches(sessionPaths(workspace, "code", sessionId).active, /"turn\/end"/, 30_000);
      const text = await chat().locator("body").innerText();
      assert.doesNotMatch(text, /DOWNCITY_CONTEXT_WINDOW/, "no banner names the environment variable");
      assert.doesNotMatch(text, /window is unknown|context window/i, "the transcript says nothing of the window");
    });

    await step("04 picking Ask in a conversation asks; Keep This Session keeps the session and its agent", async () => {
      const title = chat().getByRole("button", { name: /^Session title: Plan the restock rule/ });
      await title.waitFor({ timeout: 15_000 });
      await picker().selectOption("ask");
      const ask = chat().getByRole("alertdialog", { name: "Change agent" });
      await ask.waitFor({ timeout: 15_000 });
      assert.match(await ask.innerText(), /Ask works in its own sessions, so this conversation stays with Code/);
      await workbench.screenshot("04a-asks");
      await ask.getByRole("button", { name: "Keep This Session" }).click();
      await ask.waitFor({ state: "detached", timeout: 15_000 });
      await chat().locator("article.message.assistant", { hasText: FIRST_ANSWER }).waitFor({ timeout: 15_000 });
      await title.waitFor({ timeout: 15_000 });
      assert.equal(await picker().inputValue(), "code", "the picker is back on the session's agent");
      // The next message goes to this session, of its own agent: nothing new on disk.
      await input().fill(KEPT_PROMPT);
      await input().press("Enter");
      await chat().locator("article.message.assistant", { hasText: KEPT_ANSWER }).waitFor({ timeout: 30_000 });
      await fileMatches(sessionPaths(workspace, "code", sessionId).active, /ten units per SKU/, 30_000);
      assert.deepEqual(allSessions(workspace), [`code/${sessionId}`], "no new session folder");
      await chat().locator("article.message.assistant", { hasText: FIRST_ANSWER }).waitFor({ timeout: 15_000 });
      await title.waitFor({ timeout: 15_000 });
      assert.equal(await picker().inputValue(), "code");
    });

    await step("05 in an empty session, picking Ask applies to its first message", async () => {
      await chat().getByRole("button", { name: "New session", exact: true }).click();
      await chat()
        .getByRole("button", { name: /^Session title: New session/ })
        .waitFor({ timeout: 30_000 });
      assert.equal(await chat().locator("article.message").count(), 0, "the new session is empty");
      await picker().selectOption("ask");
      assert.equal(await chat().getByRole("alertdialog").count(), 0, "nothing to lose: no question");
      assert.equal(await picker().inputValue(), "ask");
      await input().fill(ASK_PROMPT);
      await input().press("Enter");
      await chat().locator("article.message.assistant", { hasText: ASK_ANSWER }).waitFor({ timeout: 30_000 });
      const ids = await dirHolds(join(workspace, ".downcity", "agents", "ask", "sessions"), 1, 30_000);
      assert.equal(ids.length, 1, `one Ask session on disk: ${ids.join(", ")}`);
      await fileMatches(sessionPaths(workspace, "ask", ids[0]!).active, /inventory tests/, 30_000);
      assert.deepEqual(sessionIds(workspace, "code"), [sessionId], "no Code session for the Ask message");
      assert.doesNotMatch(readFileSync(sessionPaths(workspace, "code", sessionId).active, "utf8"), /inventory tests/);
      await chat()
        .getByRole("button", { name: /^Session title: Explain the inventory tests/ })
        .waitFor({ timeout: 30_000 });
      assert.equal(await picker().inputValue(), "ask", "the picker shows the open session's agent");
    });

    await step("06 Settings: the compaction knobs are under Downcity › Advanced, in plain words", async () => {
      const editor = page.locator(".settings-editor");
      await runPaletteCommandUntil(page, "Preferences: Open Settings (UI)", editor, 30_000);
      await editor.getByRole("textbox", { name: "Search settings" }).focus({ timeout: 15_000 });
      await page.keyboard.type("downcity");
      const toc = editor.locator(".settings-toc-container .monaco-list-row");
      await toc.filter({ hasText: /^Advanced/ }).waitFor({ timeout: 30_000 });
      // The search settled: its count, the contents' and the list's agree (results keep coming in for a moment).
      await page.waitForFunction(
        () => {
          const editor = document.querySelector(".settings-editor")!;
          const found = /^(\d+) Settings? Found/.exec(
            (editor.querySelector(".settings-count-widget") as HTMLElement | null)?.innerText ?? "",
          )?.[1];
          const listed = editor
            .querySelector(".settings-tree-container .monaco-list-row")
            ?.getAttribute("aria-setsize");
          const contents = Array.from(editor.querySelectorAll(".settings-toc-container .monaco-list-row"))
            .filter((r) => r.getAttribute("aria-level") === "2")
            .reduce((sum, r) => sum + Number(/\((\d+)\)/.exec((r as HTMLElement).innerText)?.[1] ?? 0), 0);
          return found !== undefined && found === listed && Number(found) === contents;
        },
        undefined,
        { timeout: 30_000 },
      );
      // The table of contents: Advanced is a group inside Downcity.
      const entries = await toc.evaluateAll((rows) =>
        rows.map((r) => ({ level: Number(r.getAttribute("aria-level")), text: (r as HTMLElement).innerText })),
      );
      const at = entries.findIndex((e) => /^Downcity\b/.test(e.text));
      assert.ok(at >= 0, `Downcity in the contents: ${JSON.stringify(entries)}`);
      const advanced = entries[at + 1];
      assert.ok(
        advanced && /^Advanced\b/.test(advanced.text) && advanced.level === entries[at]!.level + 1,
        `Advanced is the group under Downcity: ${JSON.stringify(entries)}`,
      );
      const count = (text: string) => Number(/\((\d+)\)/.exec(text)?.[1]);
      await workbench.screenshot("06a-search");

      // Every Downcity setting the editor shows: plain words only.
      const all = await shownSettings(page, editor);
      const downcity = all.filter((text) => /^Downcity\b/.test(text));
      assert.equal(downcity.length, count(entries[at]!.text), `the Downcity settings shown:\n${all.join("\n")}`);
      for (const text of downcity) {
        assert.doesNotMatch(text, /code ?points?/i, text);
        assert.doesNotMatch(text, /\bseqs?\b/i, text);
      }

      await toc.filter({ hasText: /^Advanced\b/ }).click();
      const knobs = (await shownSettings(page, editor)).filter((text) => /^Downcity\b/.test(text));
      assert.equal(knobs.length, count(advanced.text));
      const titles = knobs.map((text) => text.split("\n")[0]!.trim()).sort();
      assert.deepEqual(titles, [
        "Downcity › Compaction: Reasoning Max Chars",
        "Downcity › Compaction: Retain Ratio",
        "Downcity › Compaction: Summary Chunk Chars",
        "Downcity › Compaction: Tool Result Max Chars",
        "Downcity › Compaction: Trigger Ratio",
        "Downcity › Compaction: Verify Ratio",
      ]);
      // Plain descriptions: each says what it does in a sentence.
      for (const text of knobs) assert.match(text, /\n[A-Z][^\n]{40,}\./, `a plain description: ${text}`);
      await workbench.screenshot("06b-advanced");
    });
  },
);

/**
 * The text of every row the Settings editor's list shows (the setting's title, description, value). The list is
 * virtual: only the rows in view are in the page, so it is scrolled with the mouse wheel and the rows are gathered by
 * their index. The search can still refresh the list while it is walked (late results re-render it and drop the
 * keyboard's focus, which is why this does not walk with Down): a list whose size changes is gathered again from its
 * top.
 */
async function shownSettings(page: Page, editor: Locator): Promise<string[]> {
  const selector = ".settings-editor .settings-tree-container .monaco-list-row";
  await page.locator(selector).first().waitFor({ timeout: 15_000 });
  await editor.locator(".settings-tree-container").hover();
  const seen = new Map<number, string>();
  let size = -1;
  for (let turn = 0; turn < 100; turn++) {
    const shown = await page.locator(selector).evaluateAll((els) =>
      els.map((el) => ({
        index: Number(el.getAttribute("data-index")),
        size: Number(el.getAttribute("aria-setsize")),
        text: (el as HTMLElement).innerText,
      })),
    );
    if (shown.length === 0) continue;
    if (shown[0]!.size !== size) {
      if (size !== -1) await page.mouse.wheel(0, -100_000);
      seen.clear();
      size = shown[0]!.size;
      continue;
    }
    for (const row of shown) seen.set(row.index, row.text);
    if (seen.size >= size) return [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => text);
    const last = Math.max(...shown.map((row) => row.index));
    await page.mouse.wheel(0, 300);
    // The rows below come into the page; a list re-rendered meanwhile is read again on the next turn.
    await page
      .waitForFunction(
        ([selector, last]) =>
          Array.from(document.querySelectorAll(selector as string)).some(
            (el) => Number(el.getAttribute("data-index")) > (last as number),
          ),
        [selector, last] as const,
        { timeout: 5_000 },
      )
      .catch(() => undefined);
  }
  throw new Error(`the settings list was not read whole: ${seen.size} of ${size} rows`);
}
