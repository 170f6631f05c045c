// Issue 25 items 2 and 3 in the real chat bundle (Chromium, the extension's CSP): the @-menu
// (a listbox: arrows, Enter / Tab, Escape that closes it without stopping the run), each
// mention kind resolved through the host, chips ("Remove ‹name›") that the meter counts
// before sending, what the prompt carries, a dropped Explorer file, Add to Chat's pushed
// attachments, attachments in the transcript, and the rules chips that open their file.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { test } from "node:test";
import type { Mention, ResolvedAttachment } from "../../core/protocol";
import { ev, helloWith, REF, skipReason, snapshot, useChat, userEv, violations } from "../support/webview/harness";

const open = useChat();
const OUT = "test/.out/webview/context";
mkdirSync(OUT, { recursive: true });

/** What the host resolves each mention to (as the VS Code side would), and why @terminal is unavailable here. */
function resolveFake(mention: Mention): ResolvedAttachment | { error: string } {
  switch (mention.kind) {
    case "file": {
      const name = mention.path.replace(/^file:\/\/\/ws\//, "");
      const label = mention.range ? `${name}:${mention.range.start}-${mention.range.end}` : name;
      return {
        info: { kind: "file", label, path: name, ...(mention.range ? { range: mention.range } : {}) },
        text: `Attached file \`${label}\`:\n\n${"x".repeat(4000)}`,
      };
    }
    case "folder":
      return {
        info: { kind: "folder", label: `${mention.path}/`, path: mention.path },
        text: "Attached folder listing of `src/`:\n\napp.ts",
      };
    case "problems":
      return {
        info: { kind: "problems", label: "Problems (2)" },
        text: "src/app.ts:3:5 error ts: Cannot find name 'x'.",
      };
    case "selection":
      return {
        info: { kind: "selection", label: "Selection (app.ts:3-4)", path: "src/app.ts", range: { start: 3, end: 4 } },
        text: "const a = 1;",
      };
    case "terminal":
      return {
        error: '@terminal is unavailable: the terminal "sh" has no shell integration, so its output cannot be read',
      };
  }
}

const USAGE = {
  type: "usage" as const,
  sessionId: REF.sessionId,
  agentId: REF.agentId,
  usage: { inputTokens: 1000, outputTokens: 0 },
  contextWindow: 10_000,
  ratio: 0.1,
};

test(
  "the @-menu: kinds, @file with a line range, @folder, @problems, @selection; chips counted by the meter; Remove; what Send carries",
  { skip: skipReason },
  async (t) => {
    const { page, host } = await open(t, (host) =>
      helloWith(snapshot([userEv(1, "hi")], { running: true, usage: USAGE }))(host)
        .on("searchMentions", ({ kind, query }) =>
          kind === "file"
            ? ["src/app.ts", "src/lib/util.ts"].filter((p) => p.includes(query.replace(/:.*/, "")))
            : ["src", "src/lib"],
        )
        .on("resolveMention", ({ mention }) => resolveFake(mention))
        .on("prompt", () => ({ steered: true }))
        .on("cancel", () => ({})),
    );
    const box = page.getByRole("textbox", { name: "Message", exact: true });
    await box.click();
    await page.keyboard.type("fix @");
    const menu = page.getByRole("listbox", { name: "Mentions" });
    await menu.waitFor();
    const kinds = await menu.getByRole("option").allTextContents();
    assert.deepEqual(
      kinds.map((k) => k.trim().split(/\s+/)[0]),
      ["@file", "@folder", "@problems", "@selection", "@terminal"],
    );
    assert.equal(await box.getAttribute("aria-activedescendant"), "mention-option-0");
    await page.screenshot({ path: `${OUT}/01-menu.png` });

    // Escape closes the menu and does not stop the running agent.
    await page.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    await host.frames();
    assert.equal(host.count("cancel"), 0, "Escape with the menu open closed the menu only");

    // @file → Enter turns the token into @file: and lists files; a range narrows to lines.
    await page.keyboard.type("f");
    await menu.waitFor();
    await page.keyboard.press("Enter");
    assert.equal(await box.inputValue(), "fix @file:");
    await page.getByRole("option", { name: "src/app.ts" }).waitFor();
    await page.keyboard.type("app:3-9");
    await page.getByRole("option", { name: "src/app.ts:3-9" }).waitFor();
    await page.keyboard.press("Tab");
    await page.getByRole("button", { name: "Remove src/app.ts:3-9" }).waitFor();
    assert.equal(await box.inputValue(), "fix", "the token is gone from the text");
    assert.deepEqual(host.sent.filter((s) => s.method === "resolveMention").at(-1)!.params.mention, {
      kind: "file",
      path: "src/app.ts",
      range: { start: 3, end: 9 },
    });

    // The meter counts the chip before sending: 1,000 used + ~1,000 attached of 10,000.
    const meter = page.getByRole("meter", { name: "Context used" });
    assert.equal(
      await meter.getAttribute("aria-valuenow"),
      String(1000 + Math.ceil((await lastText(host)).length / 4)),
    );
    assert.match(
      (await meter.getAttribute("title"))!,
      /\+ about 1,0\d\d tokens attached, sent with the next message \(20% in all\)/,
    );
    await page.screenshot({ path: `${OUT}/02-file-chip.png` });

    // @folder via arrows: Down to the second kind, Enter, then pick a folder with the mouse.
    await page.keyboard.type(" @");
    await menu.waitFor();
    await page.keyboard.press("ArrowDown");
    assert.equal(await box.getAttribute("aria-activedescendant"), "mention-option-1");
    await page.keyboard.press("Enter");
    await page.getByRole("option", { name: "src/lib/" }).waitFor();
    await page.getByRole("option", { name: "src/", exact: true }).click();
    await page.getByRole("button", { name: "Remove src/", exact: true }).waitFor();

    // @problems, @selection at once; @terminal's refusal is said and attaches nothing.
    for (const kind of ["problems", "selection", "terminal"]) {
      await page.keyboard.type(` @${kind}`);
      await page.getByRole("option", { name: new RegExp(`^@${kind}`) }).waitFor();
      await page.keyboard.press("Enter");
      await host.waitFor("resolveMention", kind === "problems" ? 3 : kind === "selection" ? 4 : 5);
    }
    await page.getByRole("button", { name: "Remove Problems (2)" }).waitFor();
    await page.getByRole("button", { name: "Remove Selection (app.ts:3-4)" }).waitFor();
    await page.getByRole("alert").filter({ hasText: "@terminal is unavailable" }).waitFor();
    await page.screenshot({ path: `${OUT}/03-chips-and-terminal-refusal.png` });

    // Remove drops one chip; Send carries the rest, in order, as resolved.
    await page.getByRole("button", { name: "Remove src/", exact: true }).click();
    await page.getByRole("button", { name: "Remove src/", exact: true }).waitFor({ state: "detached" });
    await box.focus();
    await page.keyboard.press("Enter");
    await host.waitFor("prompt");
    const sent = host.sent.find((s) => s.method === "prompt")!.params;
    assert.equal(sent.text, "fix");
    assert.deepEqual(
      sent.attachments.map((a: ResolvedAttachment) => a.info.label),
      ["src/app.ts:3-9", "Problems (2)", "Selection (app.ts:3-4)"],
    );
    assert.equal(await page.getByRole("list", { name: "Attachments" }).count(), 0, "the chips went with the message");
    assert.deepEqual(await violations(page), []);
  },
);

async function lastText(host: { sent: { method: string; params: any }[] }): Promise<string> {
  const mention = host.sent.filter((s) => s.method === "resolveMention").at(-1)!.params.mention as Mention;
  return (resolveFake(mention) as ResolvedAttachment).text;
}

test(
  "a file dropped from the Explorer, and Add to Chat's pushed attachment, become chips; a sent message shows its attachments as chips",
  { skip: skipReason },
  async (t) => {
    const sentEvent = ev(2, "user/message", {
      content: [
        { type: "text", text: "review this" },
        {
          type: "text",
          text: "Attached file `src/app.ts`:\n\nconst a = 1;",
          attachment: { kind: "file", label: "src/app.ts", path: "src/app.ts" },
        },
      ],
    });
    const { page, host } = await open(t, (host) =>
      helloWith(snapshot([userEv(1, "hi"), sentEvent]))(host).on("resolveMention", ({ mention }) =>
        resolveFake(mention),
      ),
    );
    // The transcript: the typed text, then the attachment as a chip that expands to what was sent.
    const you = page.getByRole("article", { name: "You" }).last();
    await you.getByText("review this").waitFor();
    const chip = you.locator("summary", { hasText: "src/app.ts" });
    await chip.waitFor();
    assert.equal(await you.locator(".attachment-text").isVisible(), false, "collapsed: the chip, not the file");
    await chip.click();
    await you.getByText("const a = 1;").waitFor();

    // Dragging a file from the Explorer: VS Code's uri list on the drop.
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.setData("application/vnd.code.uri-list", "file:///ws/src/dropped.ts");
      const target = document.querySelector(".composer textarea")!;
      target.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await page.getByRole("button", { name: "Remove src/dropped.ts" }).waitFor();
    assert.deepEqual(host.sent.find((s) => s.method === "resolveMention")!.params.mention, {
      kind: "file",
      path: "file:///ws/src/dropped.ts",
    });

    // Add to Chat (Explorer / editor context menu): the host pushes resolved attachments.
    await host.event({
      type: "attach",
      attachments: [
        {
          info: { kind: "selection", label: "Selection (b.ts:1-2)", path: "b.ts", range: { start: 1, end: 2 } },
          text: "sel",
        },
      ],
    });
    await page.getByRole("button", { name: "Remove Selection (b.ts:1-2)" }).waitFor();
    await page.screenshot({ path: `${OUT}/04-dropped-and-added.png` });
  },
);

test(
  "rules chips: the files that apply, with what the budget cut; a click opens the file through the host; refreshed at turn end",
  { skip: skipReason },
  async (t) => {
    let files = [{ path: "AGENTS.md", scope: "", chars: 120, state: "whole" as const }];
    const { page, host } = await open(t, (host) =>
      helloWith(snapshot([userEv(1, "hi")]))(host)
        .on("sessionRules", () => ({ files, budgetTokens: 8000 }))
        .on("openRulesFile", () => ({})),
    );
    const group = page.getByRole("group", { name: "Rules files" });
    await group.getByRole("button", { name: "Open rules file AGENTS.md" }).click();
    await host.waitFor("openRulesFile");
    assert.deepEqual(host.sent.find((s) => s.method === "openRulesFile")!.params, { ref: REF, path: "AGENTS.md" });

    files = [
      {
        path: "AGENTS.md",
        scope: "",
        chars: 9000,
        state: "truncated" as const,
        note: "kept 100 of 9,000 characters (rules budget of 8,000 tokens)",
      } as never,
      { path: "src/AGENTS.md", scope: "src", chars: 300, state: "whole" as const },
      { path: "CLAUDE.md", scope: "", chars: 0, state: "refused" as const, note: "a symbolic link" } as never,
    ];
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: { type: "turn-ended", sessionId: REF.sessionId, agentId: REF.agentId, reason: "completed" },
    });
    await group.getByRole("button", { name: "Open rules file src/AGENTS.md" }).waitFor();
    const cut = group.getByRole("button", { name: "Open rules file AGENTS.md (truncated)" });
    assert.match((await cut.getAttribute("title"))!, /rules budget of 8,000 tokens/);
    assert.equal(
      await group.getByRole("button", { name: /CLAUDE\.md/ }).count(),
      0,
      "a refused file is shown, not opened",
    );
    await group.getByText("CLAUDE.md (refused)").waitFor();
    await page.screenshot({ path: `${OUT}/05-rules-chips.png` });
  },
);

test(
  "the menu keeps up with typing: kinds show before the host's file search answers, and Enter picks for the token as typed",
  { skip: skipReason },
  async (t) => {
    const { page, host } = await open(t, (host) => {
      helloWith(snapshot([userEv(1, "hi")]))(host)
        .on("searchMentions", () => ["src/app.ts"])
        .on("resolveMention", ({ mention }) => resolveFake(mention));
      host.hold.add("searchMentions");
    });
    const box = page.getByRole("textbox", { name: "Message", exact: true });
    await box.click();
    await page.keyboard.type("see @file");
    // The file search is held: the kinds are already there, and Enter turns the whole token into @file:.
    await page.getByRole("option", { name: /^@file/ }).waitFor();
    await page.keyboard.press("Enter");
    assert.equal(await box.inputValue(), "see @file:");
    await host.release("searchMentions");
    await page.getByRole("option", { name: "src/app.ts" }).waitFor();
    // Enter while the search for what was typed is on its way picks from its answer, not from the options shown.
    host.hold.add("searchMentions");
    await page.keyboard.type("lib");
    await page.keyboard.press("Enter");
    await host.frames();
    assert.equal(host.count("resolveMention"), 0, "nothing picked from the stale list");
    await host.release("searchMentions");
    await host.waitFor("resolveMention");
    await page.getByRole("button", { name: "Remove src/app.ts" }).waitFor();
    assert.equal(await box.inputValue(), "see");
    await page.keyboard.type(" @file:");
    await page.getByRole("option", { name: "src/app.ts" }).waitFor();
    // Escape closes it; an answer arriving late does not reopen it.
    host.hold.add("searchMentions");
    await page.keyboard.type("a");
    await page.keyboard.press("Escape");
    await page.getByRole("listbox", { name: "Mentions" }).waitFor({ state: "detached" });
    await host.release("searchMentions");
    await host.frames();
    assert.equal(await page.getByRole("listbox", { name: "Mentions" }).count(), 0);
  },
);
