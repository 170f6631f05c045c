// The chat's tool cards in real Chromium (the built webview bundle):
// - an edit card's inline diff shows its hunks only, one line per row, with no `--- a/… +++ b/…`
//   header (the card's head names the file). Before, the lines ran together on one row, cut off
//   at the sidebar's edge: the template's line break had become a space. A removed line that
//   starts with "--" is still drawn as removed;
// - a read tool's live note (code intelligence waiting for the language features, see
//   extension/tools/language-ready.ts) shows while it runs and gives way to the tool's result
//   once it lands (a guard: the webview already cleared live output on the result).
import assert from "node:assert/strict";
import { test } from "node:test";
import { unifiedDiff } from "../../core/tools/edit-text";
import { ev, helloWith, REF, skipReason, snapshot, useChat, userEv, violations } from "../support/webview/harness";

const open = useChat();
const base = { sessionId: REF.sessionId, agentId: REF.agentId };

test(
  "an edit card's diff starts at its first hunk; the file is named in the card's head; a removed '-- note' line is drawn removed",
  { skip: skipReason },
  async (t) => {
    const edit = unifiedDiff("db/q.sql", "select 1;\n-- old note\nselect 2;\n", "select 1;\nselect 3;\n");
    assert.match(
      edit.diff,
      /^--- a\/db\/q\.sql\n\+\+\+ b\/db\/q\.sql\n@@/,
      "the diff as the tool reports it has the header",
    );
    const done = snapshot([
      userEv(1, "Fix the query"),
      ev(2, "assistant/message", {
        content: [{ type: "tool-call", id: "e1", name: "edit_file", arguments: { path: "db/q.sql" } }],
      }),
      ev(3, "tool/result", {
        toolCallId: "e1",
        toolName: "edit_file",
        outcome: "done",
        content: [{ type: "text", text: "edited db/q.sql" }],
        details: { kind: "edit", path: "db/q.sql", ...edit },
      }),
    ]);
    const { page } = await open(t, helloWith(done), { viewport: { width: 300, height: 600 } });
    const card = page.getByRole("group", { name: "Tool edit_file: done", exact: true });
    await card.locator("pre.diff").waitFor();
    const lines = await card.locator("pre.diff > span").evaluateAll((spans) =>
      spans.map((s) => ({
        text: s.textContent!.replace(/\n$/, ""),
        cls: s.className,
        top: s.getClientRects()[0]!.top,
      })),
    );
    const tops = lines.map((l) => l.top);
    assert.equal(new Set(tops).size, tops.length, `each diff line on a row of its own (tops ${tops.join(", ")})`);
    assert.deepEqual(
      lines.map(({ text, cls }) => ({ text, cls })),
      [
        { text: "@@ -1,3 +1,2 @@", cls: "hunk" },
        { text: " select 1;", cls: "" },
        { text: "--- old note", cls: "del" },
        { text: "-select 2;", cls: "del" },
        { text: "+select 3;", cls: "add" },
      ],
    );
    assert.equal(await card.locator(".edit-head").getByText("db/q.sql", { exact: true }).count(), 1);
    assert.deepEqual(await violations(page), []);
  },
);

test(
  "a read tool's live note shows while it runs, then its result replaces it in the card's Output",
  { skip: skipReason },
  async (t) => {
    const running = snapshot(
      [
        userEv(1, "Where is area defined?"),
        ev(2, "assistant/message", {
          content: [{ type: "tool-call", id: "d1", name: "definition", arguments: { symbol: "area" } }],
        }),
      ],
      { running: true },
    );
    const { page, host } = await open(t, helloWith(running));
    const agent = (event: Record<string, unknown>) =>
      host.event({ type: "agent", folderKey: REF.folderKey, event: { ...base, ...event } as never });
    await page.getByRole("group", { name: /^Tool definition: / }).waitFor();
    await agent({ type: "tool-started", toolCallId: "d1", name: "definition", arguments: { symbol: "area" } });
    const note = "waiting for the typescript language features to start (at most 120 s)…\n";
    await agent({ type: "tool-output", toolCallId: "d1", update: { text: note, stream: "progress" } });
    const card = page.getByRole("group", { name: "Tool definition: running", exact: true });
    await card
      .locator(".tool-output", { hasText: "waiting for the typescript language features" })
      .waitFor({ state: "attached" });

    const result = "1 definition\nshapes.ts:1:17: export function area(r: number): number {";
    await agent({
      type: "session-event",
      event: ev(3, "tool/result", {
        toolCallId: "d1",
        toolName: "definition",
        outcome: "done",
        content: [{ type: "text", text: result }],
      }),
    });
    await agent({ type: "tool-finished", toolCallId: "d1", name: "definition", outcome: "done" });
    const finished = page.getByRole("group", { name: "Tool definition: done", exact: true });
    await finished.locator(".tool-output", { hasText: "1 definition" }).waitFor({ state: "attached" });
    assert.equal(await finished.locator(".tool-output").textContent(), result, "the result, not the note");
    assert.deepEqual(await violations(page), []);
  },
);
