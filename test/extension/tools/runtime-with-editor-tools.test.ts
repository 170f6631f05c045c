import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { DENY_REASON_MAX, denyReason, type ToolResultData } from "../../../core/protocol";
import { createApprover } from "../../../extension/tools";
import { startHarness } from "../../agent/harness";
import { commands } from "../../support/vscode-fake/index";
import { editorWorkspace } from "./helpers";
import { toolCallsThen } from "../../support/tool-turn";

const resultText = (d: ToolResultData) => d.content.map((p) => (p.type === "text" ? p.text : "")).join("");

describe("the core runtime with the editor tools and approver", () => {
  it("a rejected edit reaches the model as a refusal with the reason; chained commands never match the allow-list", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "const a = 1;\n");
    const h = await startHarness(
      t,
      toolCallsThen(
        [
          {
            id: "e1",
            name: "edit_file",
            arguments: { path: "src/a.ts", edits: [{ oldText: "= 1", newText: "= 2" }] },
          },
          { id: "c1", name: "run_command", arguments: { command: "echo allowed one" } },
          { id: "c2", name: "run_command", arguments: { command: "echo allowed; touch pwned" } },
          { id: "c3", name: "run_command", arguments: { command: "echo allowed && touch pwned" } },
        ],
        { text: "ok" },
      ),
      {
        root: ws.root,
        runtime: {
          tools: () => ws.tools.tools,
          approval: () => ({ reads: "auto", edits: "ask", commands: "ask", allowedCommands: ["echo allowed"] }),
          approve: createApprover({ proposals: ws.tools.proposals, reviews: ws.reviews, decisions: ws.decisions }),
        },
      },
    );
    // The user clicks Reject in the review's title bar as soon as it opens (the review registers right after its decision).
    let rejected = false;
    const listening = ws.decisions.onDidChange(() => {
      if (rejected || ws.decisions.size === 0) return;
      rejected = true;
      queueMicrotask(() => void commands.executeCommand("downcity.rejectEdit"));
    });
    t.after(() => listening.dispose());
    // The first chained command is denied with feedback from its notification: an over-long reason with a newline
    // and a bidirectional override, which the model, the log and the card get cleaned alike.
    const typed = `not in <b>this</b> repo\n\u202e${"x".repeat(DENY_REASON_MAX)}`;
    ws.editor.answers.push("keep it at 1", "Deny with Feedback…", typed, "Deny");
    h.agent.followUp("change a");
    await h.agent.run();
    const results = h.agent.session
      .events()
      .filter((e) => e.type === "tool/result")
      .map((e) => e.data as ToolResultData);
    assert.match(resultText(results[0]!), /the user denied this edit \(edit_file\): keep it at 1/);
    assert.equal(readFileSync(file, "utf8"), "const a = 1;\n");
    assert.equal(ws.editor.diffs[0]!.title, "a.ts — Proposed by Downcity", "the edit was reviewed in the diff");
    assert.match(
      resultText(results[1]!),
      /exit code 0\n--- stdout ---\nallowed one/,
      "the allow-listed command ran without asking",
    );
    const cleaned = denyReason(typed)!;
    assert.ok(cleaned.startsWith("not in <b>this</b> repo xxx") && cleaned.endsWith("x…"), cleaned);
    assert.equal(Array.from(cleaned).length, DENY_REASON_MAX);
    assert.ok(resultText(results[2]!).includes(`the user denied this command (run_command): ${cleaned.slice(0, -1)}`));
    const logged = h.agent.session
      .events()
      .filter((e) => e.type === "tool/approval" && (e.data as { toolCallId: string }).toolCallId === "c2");
    assert.deepEqual(
      logged.map((e) => e.data),
      [{ toolCallId: "c2", decision: "denied", by: "user", reason: cleaned }],
    );
    assert.match(
      ws.editor.prompts.find((p) => p.kind === "input" && /Why deny/.test(p.message))!.message,
      /^Why deny: run `echo allowed; touch pwned`\? \(optional; Downcity tells the model\)$/,
    );
    assert.match(resultText(results[3]!), /the user denied this command/);
    assert.deepEqual(
      ws.editor.prompts.filter((p) => p.kind === "warning").map((p) => p.message),
      ["Downcity wants to run `echo allowed; touch pwned`", "Downcity wants to run `echo allowed && touch pwned`"],
      "chained commands were asked about, the plain one was not",
    );
    assert.equal(existsSync(path.join(ws.root, "pwned")), false);
  });
});
