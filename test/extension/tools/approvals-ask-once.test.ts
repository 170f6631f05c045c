import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SessionApprovalRequest } from "../../../core/runtime/types";
import type { SessionRef } from "../../../core/protocol";
import { approvalSummary, createApprover, PendingDecisions } from "../../../extension/tools";
import { workspace } from "../../support/vscode-fake/index";
import { editorWorkspace } from "./helpers";

const command = (cmd: string, cwd = "."): SessionApprovalRequest => ({
  sessionId: "s1",
  agentId: "default",
  toolCallId: `c-${cmd}`,
  toolName: "run_command",
  kind: "command",
  arguments: { command: cmd, cwd },
  summary: `run \`${cmd}\``,
  preview: { kind: "command", command: cmd, cwd },
});

describe("approvals", () => {
  it("summaries say what will happen", () => {
    assert.equal(approvalSummary(command("npm test", "pkg")), "run `npm test` in ./pkg");
    assert.equal(approvalSummary(command("git status")), "run `git status`");
    assert.equal(
      approvalSummary({ summary: "x", preview: { kind: "edit", path: "src/a.ts", diff: "", added: 3, removed: 1 } }),
      "edit src/a.ts (+3 −1)",
    );
    assert.equal(approvalSummary({ summary: "read a.ts" }), "read a.ts");
  });

  it("with the chat hidden, a notification asks: Approve, Allow for this Session, Deny, Deny with Feedback…", async (t) => {
    const ws = editorWorkspace(t);
    const approve = createApprover({ proposals: ws.tools.proposals });
    ws.editor.answers.push("Approve", "Allow for this Session", "Deny", undefined);
    const signal = new AbortController().signal;
    assert.deepEqual(await approve(command("npm test", "pkg"), signal), { approved: true, scope: "once" });
    assert.deepEqual(ws.editor.prompts[0], {
      kind: "warning",
      message: "Downcity wants to run `npm test` in ./pkg",
      items: ["Approve", "Allow for this Session", "Deny", "Deny with Feedback…"],
    });
    assert.deepEqual(await approve(command("npm test"), signal), { approved: true, scope: "session" });
    assert.deepEqual(await approve(command("rm -rf build"), signal), { approved: false });
    assert.deepEqual(await approve(command("ls"), signal), { approved: false, reason: "the request was dismissed" });
    // Deny with Feedback… asks for the reason; Escape in that box still denies, without one.
    ws.editor.answers.push("Deny with Feedback…", "  use the dry run  ", "Deny with Feedback…", undefined);
    assert.deepEqual(await approve(command("make deploy"), signal), { approved: false, reason: "use the dry run" });
    assert.deepEqual(ws.editor.prompts.at(-1), {
      kind: "input",
      message: "Why deny: run `make deploy`? (optional; Downcity tells the model)",
      items: [],
    });
    assert.deepEqual(await approve(command("make clean"), signal), { approved: false });
  });

  it("a visible chat's card asks alone; with no chat showing the session a notification asks too, and either answers", async (t) => {
    const ws = editorWorkspace(t);
    const decisions = new PendingDecisions();
    let visible = true;
    const shown: SessionRef[] = [];
    const approve = createApprover({
      folderKey: "folder-a",
      chat: () => ({
        decisions,
        shows: (ref) => (shown.push(ref), visible),
      }),
    });
    const signal = new AbortController().signal;
    const key = { folderKey: "folder-a", agentId: "default", sessionId: "s1", toolCallId: "c-make" };
    const first = approve(command("make"), signal);
    assert.deepEqual(
      shown[0],
      { folderKey: "folder-a", agentId: "default", sessionId: "s1" },
      "asked by folder, agent and session",
    );
    assert.equal(
      decisions.answer({ ...key, agentId: "other" }, { approved: true }),
      false,
      "another agent's session of the same id is not answered",
    );
    assert.equal(decisions.answer(key, { approved: false, reason: "not now" }), true);
    assert.deepEqual(await first, { approved: false, reason: "not now" });
    assert.equal(ws.editor.prompts.length, 0);
    visible = false;
    const second = approve(command("make"), signal);
    assert.equal(ws.editor.prompts.length, 1, "hidden chat: a notification asks too");
    // The chat shown later answers the same decision; the toast's late click changes nothing.
    assert.equal(decisions.answer(key, { approved: true, scope: "once" }), true);
    assert.deepEqual(await second, { approved: true, scope: "once" });
    assert.equal(decisions.isPending(key), false);
  });

  it("a cancelled call stops waiting for the answer", async (t) => {
    const ws = editorWorkspace(t);
    const approve = createApprover({});
    const abort = new AbortController();
    const pending = approve(command("sleep 1"), abort.signal);
    abort.abort();
    assert.deepEqual(await pending, { approved: false, reason: "the turn was cancelled" });
    assert.equal(ws.editor.prompts.length, 1);
  });

  it("Restricted Mode refuses edits and commands without asking, and the tools refuse too", async (t) => {
    const ws = editorWorkspace(t);
    ws.write("a.txt", "a\n");
    workspace.isTrusted = false;
    t.after(() => (workspace.isTrusted = true));
    const approve = createApprover({});
    assert.deepEqual(await approve(command("ls"), new AbortController().signal), {
      approved: false,
      reason: "the workspace is in Restricted Mode",
    });
    assert.equal(ws.editor.prompts.length, 0);
    for (const [name, args] of [
      ["edit_file", { path: "a.txt", edits: [{ oldText: "a", newText: "b" }] }],
      ["write_file", { path: "b.txt", content: "b" }],
      ["run_command", { command: "touch c.txt" }],
    ] as const) {
      const out = await ws.run(name, args);
      assert.equal(out.isError, true);
    }
    assert.equal(ws.editor.applied.length, 0);
    assert.equal(ws.editor.terminals.length, 0);
  });
});
