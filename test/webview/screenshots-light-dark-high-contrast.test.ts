import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ChatSnapshot } from "../../core/protocol";
import type { Page } from "playwright-core";
import {
  assistantEv,
  CONFIG,
  ev,
  openChat,
  OUT,
  REF,
  skipReason,
  snapshot,
  userEv,
  violations,
  useBrowser,
  type Theme,
} from "../support/webview/harness";

const browserOf = useBrowser();
mkdirSync(OUT, { recursive: true });

const DIFF =
  "--- a/src/math.ts\n+++ b/src/math.ts\n@@ -1,3 +1,3 @@\n export function add(a: number, b: number) {\n-  return a - b;\n+  return a + b;\n }\n";

function working(): ChatSnapshot {
  const events = [
    userEv(1, "Fix the add function in src/math.ts and run the tests."),
    ev(2, "assistant/message", {
      content: [
        { type: "reasoning", text: "The function subtracts; it should add." },
        {
          type: "text",
          text: "The bug is in `add`:\n\n```ts\nexport function add(a: number, b: number) {\n  return a - b;\n}\n```\n\nI'll fix it.",
        },
        { type: "tool-call", id: "t1", name: "edit_file", arguments: { path: "src/math.ts" } },
      ],
      model: "qwen-coder",
    }),
    ev(3, "tool/result", {
      toolCallId: "t1",
      toolName: "edit_file",
      content: [{ type: "text", text: "Edited src/math.ts" }],
    }),
    ev(4, "assistant/message", {
      content: [{ type: "tool-call", id: "t2", name: "run_command", arguments: { command: "npm test" } }],
    }),
  ];
  return snapshot(events, {
    running: true,
    pendingApprovals: [
      {
        type: "approval-requested",
        sessionId: REF.sessionId,
        agentId: REF.agentId,
        toolCallId: "t2",
        toolName: "run_command",
        kind: "command",
        summary: "Run npm test in .",
        preview: { kind: "command", command: "npm test", cwd: "." },
      },
    ],
    usage: {
      type: "usage",
      sessionId: REF.sessionId,
      agentId: REF.agentId,
      usage: { inputTokens: 41_000, outputTokens: 900 },
      contextWindow: 128_000,
      ratio: 0.33,
    },
    model: { provider: "local", model: "qwen-coder" },
  });
}

const STATES: Record<
  string,
  { hello: unknown; after?: (chat: Awaited<ReturnType<typeof openChat>>) => Promise<void> }
> = {
  conversation: {
    hello: { config: CONFIG, snapshot: working() },
    after: async ({ host }) => {
      await host.event({
        type: "agent",
        folderKey: REF.folderKey,
        event: {
          type: "tool-finished",
          sessionId: REF.sessionId,
          agentId: REF.agentId,
          toolCallId: "t1",
          name: "edit_file",
          outcome: "done",
          details: { kind: "edit", path: "src/math.ts", diff: DIFF, added: 1, removed: 1 },
        },
      });
    },
  },
  "no-provider": { hello: { config: { ...CONFIG, providerConfigured: false } } },
  "read-only": {
    hello: {
      config: CONFIG,
      snapshot: snapshot([userEv(1, "Hello"), assistantEv(2, "Hi! How can I help?")], {
        readOnly: "open in another window (pid 4242)",
      }),
    },
  },
};

const CONTRAST_BORDER = "rgb(111, 195, 223)";
const ACTIVE_BORDER = "rgb(243, 133, 24)";

/** Computed style properties of the first element matching `selector`. */
function styleOf(page: Page, selector: string, props: string[]): Promise<Record<string, string>> {
  return page.evaluate(
    ({ selector, props }) => {
      const style = getComputedStyle(document.querySelector(selector)!);
      return Object.fromEntries(props.map((p) => [p, style.getPropertyValue(p)]));
    },
    { selector, props },
  );
}

/** High contrast: every surface edged with contrastBorder, focus and hover drawn with the active border. */
async function checkHighContrast(page: Page): Promise<void> {
  assert.equal(await page.evaluate(() => document.body.className), "vscode-high-contrast");
  for (const selector of [
    ".composer textarea",
    "select[aria-label=Model]",
    "button.primary",
    ".tool-card",
    ".code-block",
  ]) {
    assert.equal(
      (await styleOf(page, selector, ["border-top-color"]))["border-top-color"],
      CONTRAST_BORDER,
      `${selector} border`,
    );
  }
  assert.equal((await styleOf(page, ".composer", ["border-top-color"]))["border-top-color"], CONTRAST_BORDER);
  await page.getByRole("button", { name: "Send" }).focus();
  assert.deepEqual(await styleOf(page, "button.primary:focus-visible", ["outline-style", "outline-color"]), {
    "outline-style": "solid",
    "outline-color": ACTIVE_BORDER,
  });
  await page.getByRole("button", { name: "New session" }).hover();
  assert.deepEqual(await styleOf(page, "button[aria-label='New session']", ["outline-style", "outline-color"]), {
    "outline-style": "dashed",
    "outline-color": ACTIVE_BORDER,
  });
  await page.mouse.move(0, 0);
}

for (const theme of ["light", "dark", "high-contrast"] as const satisfies readonly Theme[]) {
  test(`screenshots of the main states, ${theme} theme`, { skip: skipReason }, async () => {
    for (const [name, state] of Object.entries(STATES)) {
      const chat = await openChat(browserOf(), (host) => host.on("hello", () => state.hello as never), { theme });
      try {
        await chat.page.locator(".composer").waitFor();
        await state.after?.(chat);
        await chat.host.frames();
        await chat.page.evaluate(() => document.fonts.ready);
        await chat.page.screenshot({ path: join(OUT, `${name}-${theme}.png`) });
        if (name === "conversation" && theme === "high-contrast") await checkHighContrast(chat.page);
        if (name === "conversation" && theme !== "high-contrast") {
          // The high-contrast edges stay invisible in the other themes.
          await chat.page.getByRole("button", { name: "New session" }).hover();
          assert.equal(
            (await styleOf(chat.page, "button[aria-label='New session']", ["outline-color"]))["outline-color"],
            "rgba(0, 0, 0, 0)",
          );
          await chat.page.mouse.move(0, 0);
        }
        if (name === "no-provider") {
          // The connect form (connect-form.test.ts drives it).
          for (const label of ["Base URL", "Model", "API key"])
            await chat.page.getByLabel(label, { exact: true }).waitFor();
          await chat.page.getByRole("button", { name: "Connect", exact: true }).waitFor();
        }
        if (name === "read-only") {
          assert.equal(await chat.page.getByRole("textbox", { name: "Message" }).isDisabled(), true);
          await chat.page.getByText("Read-only: open in another window").waitFor();
        }
        assert.deepEqual(await violations(chat.page), []);
      } finally {
        await chat.close();
      }
    }
  });
}
