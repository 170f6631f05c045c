import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import type { SessionApprovalRequest } from "../../../core/runtime/types";
import { createApprover, PendingDecisions } from "../../../extension/tools";
import { commands } from "../../support/vscode-fake/index";
import { editorWorkspace, text } from "./helpers";

const edit = (oldText: string, newText: string) => ({ path: "src/a.ts", edits: [{ oldText, newText }] });

describe("one decision per approval, whichever surface answers first", () => {
  it("the card first: the diff closes, its title-bar actions go, a late Accept changes nothing", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\n");
    let late: unknown;
    const result = await ws.reviewed("edit_file", edit("one", "two"), {
      answer: async ({ toolCallId }) => {
        const right = ws.editor.diffs[0]!.right;
        assert.equal(ws.card(toolCallId, { approved: false }), true);
        // The review closes its tab once the decision settled; then the title bar is gone.
        await ws.decisions.get(ws.key(toolCallId))?.decision;
        late = right;
      },
    });
    assert.deepEqual(result, { approved: false });
    assert.equal(ws.editor.tabs.length, 0, "the diff tab closed");
    assert.equal(ws.editor.contexts["downcity.reviewPending"], false);
    assert.equal(await commands.executeCommand("downcity.acceptEdit", late), false);
    assert.equal(readFileSync(file, "utf8"), "one\n", "denied: the file is unchanged");
  });

  it("a review whose diff the user closed is shown again from the card's Open diff, and still answers", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\n");
    let reopened: unknown;
    const result = await ws.reviewed("edit_file", edit("one", "two"), {
      toolCallId: "call-reopen",
      answer: async ({ key }) => {
        ws.editor.tabs.splice(0); // the user closes the tab without answering
        assert.equal(ws.decisions.isPending(key), true, "closing the diff answers nothing");
        reopened = await commands.executeCommand("downcity.tools.showReview", key);
        assert.equal(ws.editor.tabs.length, 1);
        return commands.executeCommand("downcity.acceptEdit", ws.editor.tabs[0]!.input.modified);
      },
    });
    assert.equal(reopened, true);
    assert.equal(result.approved, true);
    assert.equal(readFileSync(file, "utf8"), "two\n");
    assert.equal(
      await commands.executeCommand("downcity.tools.showReview", ws.key("call-reopen")),
      false,
      "answered: nothing to show",
    );
  });

  it("the title bar first: the card's answer afterwards is refused (the card shows the host's outcome)", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\n");
    let cardLate: boolean | undefined;
    const result = await ws.reviewed("edit_file", edit("one", "two"), {
      answer: async ({ toolCallId }) => {
        assert.equal(await commands.executeCommand("downcity.acceptEdit", ws.editor.diffs[0]!.right), true);
        cardLate = ws.card(toolCallId, { approved: false });
      },
    });
    assert.equal(cardLate, false);
    assert.equal(result.approved, true);
    assert.equal(readFileSync(file, "utf8"), "two\n");
  });

  it("two reviews open at once: each title-bar action answers the diff it was clicked on", async (t) => {
    const ws = editorWorkspace(t);
    const a = ws.write("src/a.ts", "a\n");
    const b = ws.write("src/b.ts", "b\n");
    let second: Promise<{ approved: boolean }> | undefined;
    ws.editor.answers.push(undefined); // no reason given for the rejection
    const first = await ws.reviewed("edit_file", edit("a", "A"), {
      toolCallId: "call-a",
      answer: () => {
        second = ws.reviewed(
          "edit_file",
          { path: "src/b.ts", edits: [{ oldText: "b", newText: "B" }] },
          {
            toolCallId: "call-b",
            answer: async () => {
              const [diffA, diffB] = ws.editor.diffs;
              assert.equal(ws.reviews.size, 2);
              await commands.executeCommand("downcity.rejectEdit", diffB!.right);
              await commands.executeCommand("downcity.acceptEdit", diffA!.right);
            },
          },
        );
      },
    });
    assert.equal(first.approved, true);
    assert.deepEqual(await second, { approved: false });
    assert.equal(readFileSync(a, "utf8"), "A\n");
    assert.equal(readFileSync(b, "utf8"), "b\n");
  });

  it("a command's notification (chat hidden) and the card answer one decision; Stop cancels it everywhere", async (t) => {
    const ws = editorWorkspace(t);
    const decisions = new PendingDecisions();
    const approve = createApprover({ folderKey: "f", chat: { decisions, shows: () => false } });
    const req = (id: string): SessionApprovalRequest => ({
      sessionId: "s1",
      agentId: "default",
      toolCallId: id,
      toolName: "run_command",
      kind: "command",
      arguments: { command: "make" },
      summary: "run `make`",
      preview: { kind: "command", command: "make", cwd: "." },
    });
    // The notification first.
    ws.editor.answers.push("Allow for this Session");
    assert.deepEqual(await approve(req("n1"), new AbortController().signal), { approved: true, scope: "session" });
    assert.equal(
      decisions.answer({ folderKey: "f", agentId: "default", sessionId: "s1", toolCallId: "n1" }, { approved: false }),
      false,
      "the card's late answer changes nothing",
    );
    // Stop: the toast is left unanswered (it may have hidden itself), and the decision is cancelled.
    const stop = new AbortController();
    const pending = approve(req("n2"), stop.signal);
    assert.equal(decisions.size, 1);
    stop.abort();
    assert.deepEqual(await pending, { approved: false, reason: "the turn was cancelled" });
    assert.equal(decisions.size, 0, "nothing is left open");
  });
});

describe("Undo of an applied edit", () => {
  it("restores the text before the edit, on disk, through one more WorkspaceEdit; one step only", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "const a = 1;\nconst b = 2;\n");
    const result = await ws.reviewed("edit_file", edit("const b = 2;", "const b = 3;"), {
      toolCallId: "call-u",
      answer: ({ toolCallId }) => ws.card(toolCallId, { approved: true }),
    });
    assert.equal(result.output!.isError, undefined, text(result.output));
    assert.equal(readFileSync(file, "utf8"), "const a = 1;\nconst b = 3;\n");
    assert.deepEqual(await ws.tools.undoEdit(ws.key("call-u")), { path: "src/a.ts" });
    assert.equal(readFileSync(file, "utf8"), "const a = 1;\nconst b = 2;\n", "back on disk");
    assert.equal(ws.editor.applied.length, 2, "the undo is a WorkspaceEdit too (the editor can redo it)");
    const doc = await ws.editor.open(file);
    assert.equal(doc.isDirty, false, "and saved");
    await assert.rejects(ws.tools.undoEdit(ws.key("call-u")), /cannot be undone here: it was undone already/);
  });

  it("refuses, changing nothing, when the file changed since the edit (on disk or in an unsaved buffer)", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\n");
    await ws.run("edit_file", edit("one", "two"), { toolCallId: "call-d" });
    writeFileSync(file, "two\nthe user wrote more\n");
    await assert.rejects(ws.tools.undoEdit(ws.key("call-d")), /src\/a.ts changed since the edit; nothing was undone/);
    assert.equal(readFileSync(file, "utf8"), "two\nthe user wrote more\n");

    ws.write("src/b.ts", "x\n");
    await ws.run("edit_file", { path: "src/b.ts", edits: [{ oldText: "x", newText: "y" }] }, { toolCallId: "call-e" });
    await ws.editor.open(path.join(ws.root, "src/b.ts"), "y\ntyping\n");
    await assert.rejects(
      ws.tools.undoEdit(ws.key("call-e")),
      /src\/b.ts changed since the edit \(it has unsaved changes\); nothing was undone/,
    );
    assert.equal(readFileSync(path.join(ws.root, "src/b.ts"), "utf8"), "y\n");
  });

  it("a created file is deleted; another session's call of the same id is not undone", async (t) => {
    const ws = editorWorkspace(t);
    await ws.run("write_file", { path: "new.ts", content: "new\n" }, { toolCallId: "call_0" });
    const file = path.join(ws.root, "new.ts");
    assert.equal(existsSync(file), true);
    await assert.rejects(
      ws.tools.undoEdit({ ...ws.key("call_0"), sessionId: "another-session" }),
      /cannot be undone here/,
    );
    assert.deepEqual(await ws.tools.undoEdit(ws.key("call_0")), { path: "new.ts" });
    assert.equal(existsSync(file), false);
  });
});
