import assert from "node:assert/strict";
import { test } from "node:test";
import { fallbackTitle } from "../../../core/agent/titles";
import {
  fileAttachment,
  folderAttachment,
  problemsAttachment,
  selectionAttachment,
  terminalAttachment,
  withAttachments,
} from "../../../core/mentions";
import { parseFileMention } from "../../../core/mentions/attachments";
import type { ResolvedAttachment, UserMessageData } from "../../../core/protocol";
import { wire } from "../../support/provider-server";
import { startHarness } from "../../agent/harness";
import { ChatController, FOLDER, recordingActions, runtimesOf, view } from "./helpers";

const FILE = ["line one", "line two", "line three ```", "line four"].join("\n");

/** One of each kind, built the way the VS Code host builds them from what the editor has. */
function eachKind(): ResolvedAttachment[] {
  return [
    fileAttachment("src/app.ts", FILE, parseFileMention("src/app.ts:2-3").range),
    folderAttachment("src", [
      { name: "app.ts", directory: false },
      { name: "lib", directory: true },
    ]),
    problemsAttachment([
      { path: "src/app.ts", line: 3, column: 5, severity: "error", message: "Cannot find name 'x'.", source: "ts" },
    ]),
    selectionAttachment("src/lib/util.ts", { start: 7, end: 8 }, "export const util = 1;\nexport const more = 2;"),
    terminalAttachment("bash", "\x1b[32m$ npm test\x1b[0m\r\n1 failing\r\n", "npm test"),
  ];
}

test("Mentions: each kind, sent with the prompt, is stored in the user message's event and seen in the provider request", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "ok" }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const v = view(controller, recordingActions());
  const ref = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  await v.request("switchSession", { ref });
  const attachments = eachKind();
  await v.request("prompt", { ref, text: "fix it", attachments });
  await v.until((e) => e.type === "turn-ended");

  // The provider request: the typed text, then each attachment's text, in order.
  const user = h.bodies()[0].messages.find((m: { role: string }) => m.role === "user");
  const sent =
    typeof user.content === "string" ? user.content : user.content.map((p: { text: string }) => p.text).join("\n");
  assert.ok(sent.startsWith("fix it"));
  assert.match(
    sent,
    /Attached lines 2-3 of `src\/app\.ts`:\n\n````ts\nline two\nline three ```\n````/,
    "a fence longer than the file's backticks",
  );
  assert.doesNotMatch(sent, /line one|line four/, "only the range");
  assert.match(sent, /Attached folder listing of `src\/` \(2 entries\):\n\n```\nlib\/\napp\.ts\n```/);
  assert.match(sent, /src\/app\.ts:3:5 error ts: Cannot find name 'x'\./);
  assert.match(sent, /Attached selection, lines 7-8 of `src\/lib\/util\.ts`:[\s\S]*export const more = 2;/);
  assert.match(
    sent,
    /terminal "bash" \(last command: `npm test`\):\n\n```\n\$ npm test\n1 failing\n```/,
    "escape sequences and CRs are removed",
  );
  let at = -1;
  for (const a of attachments) {
    const next = sent.indexOf(a.text.slice(0, 30));
    assert.ok(next > at, `${a.info.kind} in order`);
    at = next;
  }

  // The user message's event: one text block per attachment, each with its chip's info.
  const event = h.agent.session.events().find((e) => e.type === "user/message")!;
  const blocks = (event.data as UserMessageData).content;
  assert.deepEqual(blocks[0], { type: "text", text: "fix it" });
  assert.deepEqual(
    blocks.slice(1).map((b) => (b.type === "text" ? b.attachment : undefined)),
    [
      { kind: "file", label: "src/app.ts:2-3", path: "src/app.ts", range: { start: 2, end: 3 } },
      { kind: "folder", label: "src/", path: "src" },
      { kind: "problems", label: "Problems (1)" },
      { kind: "selection", label: "Selection (util.ts:7-8)", path: "src/lib/util.ts", range: { start: 7, end: 8 } },
      { kind: "terminal", label: "Terminal (bash)" },
    ],
  );
  // Counted against the context window like any message: the request's measured characters include them.
  const header = h.agent.session.events().find((e) => e.type === "request/header")!;
  const chars = (header.data as { chars: { messages: number } }).chars.messages;
  assert.ok(chars >= attachments.reduce((n, a) => n + a.text.length, 0), `messages chars ${chars}`);
});

test("Mentions: a path attachment (the old form) is read by the host and stored with its chip info; a malformed one is refused before anything runs", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "ok" }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const v = view(controller, recordingActions());
  const ref = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  await v.request("switchSession", { ref });
  await assert.rejects(
    v.request("prompt", { ref, text: "x", attachments: [{ info: { kind: "nope", label: "x" }, text: "t" }] }),
    /invalid params for prompt/,
  );
  await assert.rejects(
    v.request("resolveMention", { folderKey: FOLDER, mention: { kind: "file", path: "" } }),
    /invalid params/,
  );
  assert.equal(h.server.requests.length, 0);
  await v.request("prompt", { ref, text: "look", attachments: ["src/a.ts"] });
  await v.until((e) => e.type === "turn-ended");
  const event = h.agent.session.events().find((e) => e.type === "user/message")!;
  const block = (event.data as UserMessageData).content[1]!;
  assert.equal(block.type, "text");
  assert.deepEqual(block.type === "text" && block.attachment, { kind: "file", label: "src/a.ts", path: "src/a.ts" });
  assert.match(JSON.stringify(h.bodies()[0].messages), /Attached file `src\/a\.ts`:.*file text/);
});

test("Mention text: a huge file is cut with a marker; withAttachments keeps an empty message to the attachments", () => {
  const big = fileAttachment("big.txt", "x".repeat(300_000));
  assert.match(big.text, /\[… truncated: 262,144 of 300,0\d\d characters attached\]$/);
  assert.ok(big.text.length < 262_144 + 200);
  assert.deepEqual(
    withAttachments("", [big]).map((b) => b.type === "text" && b.attachment?.kind),
    ["file"],
  );
  assert.deepEqual(parseFileMention("a/b.ts:10-20"), { path: "a/b.ts", range: { start: 10, end: 20 } });
  assert.deepEqual(parseFileMention("a/b.ts:20-10"), { path: "a/b.ts", range: { start: 10, end: 20 } });
  assert.deepEqual(parseFileMention("a/b.ts:7"), { path: "a/b.ts", range: { start: 7, end: 7 } });
  assert.deepEqual(parseFileMention("C:x"), { path: "C:x" });
});

test("a session's fallback title comes from what the user typed, never from an attachment's text (only labels when nothing was typed)", () => {
  const file = fileAttachment("src/app.ts", "export const secretFirstLine = 1;");
  assert.equal(fallbackTitle(withAttachments("Explain this module.", [file])), "Explain this module.");
  assert.equal(fallbackTitle(withAttachments("", [file, problemsAttachment([])])), "src/app.ts, Problems (0)");
});
