import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { Diagnostic, DiagnosticSeverity, Range } from "../../support/vscode-fake/editor";
import { commands, Uri } from "../../support/vscode-fake/index";
import { editorWorkspace, text } from "./helpers";

const edit = (oldText: string, newText: string) => ({ path: "src/a.ts", edits: [{ oldText, newText }] });

describe("edits reviewed in a diff", () => {
  it("accepted from the diff's title bar: the diff shows the proposal; one WorkspaceEdit, saved; one undo restores the file", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "const a = 1;\nconst b = 2;\nconst c = 3;\n");
    let during: unknown;
    const result = await ws.reviewed("edit_file", edit("const b = 2;", "const b = 20;\nconst b2 = 21;"), {
      toolCallId: "call-acc",
      answer: () => {
        during = { ...ws.editor.contexts };
        return commands.executeCommand("downcity.acceptEdit", ws.editor.diffs[0]!.right);
      },
    });
    assert.equal(result.approved, true);
    assert.deepEqual(
      during,
      { "downcity.reviewPending": true, "downcity.reviewEditing": false },
      "the title-bar actions show while it is open",
    );
    assert.equal(ws.editor.contexts["downcity.reviewPending"], false, "and go when it is answered");
    assert.equal(
      readFileSync(file, "utf8"),
      "const a = 1;\nconst b = 20;\nconst b2 = 21;\nconst c = 3;\n",
      "saved to disk",
    );
    const diff = ws.editor.diffs[0]!;
    assert.equal(diff.title, "a.ts — Proposed by Downcity");
    assert.equal(diff.left.fsPath, file, "left: the document as the editor has it");
    assert.equal(diff.right.scheme, "downcity-proposal");
    assert.equal(ws.editor.prompts.length, 0, "no toast: the diff and the chat card ask");
    assert.equal(ws.editor.tabs.length, 0, "the diff tab is closed after the decision");
    assert.equal(ws.editor.applied.length, 1, "one WorkspaceEdit");
    assert.equal(ws.editor.applied[0]!.size, 1, "one text change in it");
    assert.match(text(result.output), /^edited src\/a.ts: applied 1 edit\n  edit 1: line 2/);
    assert.equal(result.output!.details?.kind, "edit");
    const doc = await ws.editor.open(file);
    assert.equal(doc.isDirty, false);
    ws.editor.undo(doc);
    assert.equal(doc.getText(), "const a = 1;\nconst b = 2;\nconst c = 3;\n", "one undo step reverts the whole edit");
  });

  it("the proposal is computed against the unsaved buffer, and the virtual document serves it", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "saved text\n");
    await ws.editor.open(file, "unsaved text\n");
    let served: string | undefined;
    const result = await ws.reviewed("edit_file", edit("unsaved", "edited"), {
      answer: ({ toolCallId }) => {
        served = ws.editor.provided(ws.editor.diffs[0]!.right);
        return ws.card(toolCallId, { approved: true, scope: "once" });
      },
    });
    assert.equal(served, "edited text\n");
    assert.equal(result.approved, true);
    assert.equal(readFileSync(file, "utf8"), "edited text\n");
  });

  it("rejected from the title bar: the file is untouched and the model gets the user's reason", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "keep me\n");
    ws.editor.answers.push("use a constant instead");
    const result = await ws.reviewed("edit_file", edit("keep", "drop"), {
      toolCallId: "call-x",
      answer: () => commands.executeCommand("downcity.rejectEdit"),
    });
    assert.deepEqual(result, { approved: false, reason: "use a constant instead" });
    assert.equal(ws.editor.prompts[0]!.kind, "input");
    assert.equal(readFileSync(file, "utf8"), "keep me\n");
    assert.equal(ws.editor.applied.length, 0);
    assert.equal(ws.tools.proposals.get(ws.key("call-x")), undefined);
    assert.equal(ws.editor.tabs.length, 0);
  });

  it("the card's answer while the title bar's Reject asks for a reason wins, and closes the question", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\n");
    let rejecting: Promise<unknown> | undefined;
    const result = await ws.reviewed("edit_file", edit("one", "two"), {
      answer: ({ toolCallId }) => {
        rejecting = commands.executeCommand("downcity.rejectEdit");
        assert.equal(ws.card(toolCallId, { approved: true, scope: "once" }), true, "the card answers first");
        assert.equal(ws.card(toolCallId, { approved: false }), false, "a second answer changes nothing");
      },
    });
    assert.equal(await rejecting, false, "the reason box closed without answering");
    assert.equal(result.approved, true);
    assert.equal(readFileSync(file, "utf8"), "two\n");
  });

  it("Stop while the review is open: cancelled, the diff closes, nothing is written", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\n");
    const stop = new AbortController();
    const result = await ws.reviewed("edit_file", edit("one", "two"), {
      toolCallId: "call-stop",
      signal: stop.signal,
      answer: () => {
        assert.equal(ws.editor.tabs.length, 1);
        stop.abort();
      },
    });
    assert.deepEqual(result, { approved: false, reason: "the turn was cancelled" });
    assert.equal(ws.editor.tabs.length, 0);
    assert.equal(ws.decisions.isPending(ws.key("call-stop")), false);
    assert.equal(ws.editor.contexts["downcity.reviewPending"], false);
    assert.equal(readFileSync(file, "utf8"), "one\n");
    assert.equal(await commands.executeCommand("downcity.acceptEdit"), false, "a late Accept finds nothing to answer");
  });

  it("a file changed on disk after the proposal is not overwritten", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\n");
    const c = ws.ctx();
    const tool = ws.registry.get("edit_file")!;
    await tool.preview!(edit("one", "two"), c);
    writeFileSync(file, "someone else wrote this\none\n");
    const out = await ws.registry.run("edit_file", edit("one", "two"), c);
    assert.equal(out.isError, true);
    assert.match(text(out), /src\/a.ts changed (on disk|in the editor) after the proposal; nothing was written/);
    assert.equal(readFileSync(file, "utf8"), "someone else wrote this\none\n");
    assert.equal(ws.editor.applied.length, 0);
  });

  it("a buffer typed into after the proposal is not overwritten", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\n");
    const c = ws.ctx();
    await ws.registry.get("edit_file")!.preview!(edit("one", "two"), c);
    const doc = await ws.editor.open(file, "one\nthe user typed\n");
    const out = await ws.registry.run("edit_file", edit("one", "two"), c);
    assert.match(text(out), /changed in the editor after the proposal/);
    assert.equal(doc.getText(), "one\nthe user typed\n");
  });

  it("a file changed during the review is not written: the accepted text was computed against what the user no longer has", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "alpha\nbeta\n");
    const result = await ws.reviewed(
      "edit_file",
      { path: "src/a.ts", edits: [{ oldText: "beta", newText: "BETA" }] },
      {
        answer: () => {
          writeFileSync(file, "alpha\nbeta\ngamma\n");
          return commands.executeCommand("downcity.acceptEdit");
        },
      },
    );
    assert.equal(result.approved, true);
    assert.equal(result.output!.isError, true);
    assert.match(
      text(result.output),
      /src\/a.ts changed on disk after the proposal; nothing was written\. Read the file again/,
    );
    assert.equal(readFileSync(file, "utf8"), "alpha\nbeta\ngamma\n", "the later change is kept");
  });

  it("Edit Proposal: the user's version of the proposal is what is written, and the model is told", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "x = 1\n");
    const result = await ws.reviewed("edit_file", edit("x = 1", "x = 2"), {
      answer: async () => {
        await commands.executeCommand("downcity.editProposal");
        assert.equal(ws.editor.contexts["downcity.reviewEditing"], true);
        const editable = [...ws.editor.documents.values()].find((d) => d.isUntitled)!;
        editable.setText("x = 3 # reviewed\n", true);
        // Accept in the editing diff's title bar (its right side is the editable copy).
        return commands.executeCommand("downcity.acceptEdit", editable.uri);
      },
    });
    assert.equal(readFileSync(file, "utf8"), "x = 3 # reviewed\n");
    assert.match(text(result.output), /The user changed your proposal before accepting it/);
    assert.match(ws.editor.diffs[1]!.title, /Proposed by Downcity \(editing\)/);
    const editable = [...ws.editor.documents.values()].find((d) => d.isUntitled)!;
    assert.equal(editable.isDirty, false, "the editable copy closes without a save prompt");
    assert.equal(ws.editor.tabs.length, 0, "both diffs are closed");
  });

  it("write_file creates a new file through the WorkspaceEdit and saves it", async (t) => {
    const ws = editorWorkspace(t);
    const result = await ws.reviewed(
      "write_file",
      { path: "new/dir/b.ts", content: "export const b = 1;\n" },
      { answer: () => commands.executeCommand("downcity.acceptEdit") },
    );
    const file = path.join(ws.root, "new/dir/b.ts");
    assert.equal(readFileSync(file, "utf8"), "export const b = 1;\n");
    assert.equal(
      ws.editor.diffs[0]!.left.scheme,
      "downcity-proposal",
      "a new file is diffed against an empty document",
    );
    assert.deepEqual(
      ws.editor.applied[0]!.ops.map((o) => o.kind),
      ["create", "text"],
    );
    assert.match(text(result.output), /^created new\/dir\/b.ts \(20 bytes, 1 line\)/);
    assert.equal(result.output!.details?.kind === "edit" && result.output!.details.newFile, true);
  });

  it("auto-approved edits apply without a diff, still as one undoable edit, with a link to the applied diff", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "before\n");
    const out = await ws.run("edit_file", edit("before", "after"), { toolCallId: "auto-1" });
    assert.equal(readFileSync(file, "utf8"), "after\n");
    assert.equal(ws.editor.diffs.length, 0);
    assert.equal(ws.editor.applied.length, 1);
    const details = out.details!;
    assert.equal(details.kind, "edit");
    assert.match(details.kind === "edit" ? details.diff : "", /-before\n\+after/);
    assert.equal(await ws.tools.showAppliedDiff(ws.key("auto-1")), true);
    const shown = ws.editor.diffs[0]!;
    assert.equal(shown.title, "a.ts — Applied by Downcity");
    assert.equal(ws.editor.provided(shown.left), "before\n");
    assert.equal(shown.right.fsPath, file);
  });

  it("after an edit the result carries the errors the language server newly reports", async (t) => {
    const ws = editorWorkspace(t, { diagnosticsWaitMs: 5_000 });
    const file = ws.write("src/a.ts", "const a: number = 1;\n");
    const uri = Uri.file(file);
    const old = new Diagnostic(new Range(0, 0, 0, 1), "an old error");
    ws.editor.setDiagnostics(uri, [old]);
    ws.editor.languageServer = (doc) => {
      const d = new Diagnostic(
        new Range(0, 6, 0, 7),
        "Type 'string' is not assignable to type 'number'.",
        DiagnosticSeverity.Error,
      );
      d.source = "ts";
      d.code = 2322;
      ws.editor.setDiagnostics(doc.uri, [old, d]);
    };
    const out = await ws.run("edit_file", edit("= 1", '= "one"'));
    assert.match(
      text(out),
      /The edit introduced 1 new error in src\/a.ts:\n  src\/a.ts:1:7 error ts\(2322\): Type 'string' is not assignable to type 'number'\.$/,
    );
    assert.doesNotMatch(text(out), /an old error/);
  });

  it("the core's edit rules apply to the editor's text: a CRLF file edited with LF stays CRLF", async (t) => {
    const ws = editorWorkspace(t);
    const file = ws.write("src/a.ts", "one\r\ntwo\r\n");
    const out = await ws.run("edit_file", { path: "src/a.ts", edits: [{ oldText: "one\ntwo", newText: "one\nTWO" }] });
    assert.equal(out.isError, undefined, text(out));
    assert.equal(readFileSync(file, "utf8"), "one\r\nTWO\r\n");
  });

  it("an edit that cannot apply fails in the preview, before anyone is asked", async (t) => {
    const ws = editorWorkspace(t);
    ws.write("src/a.ts", "text\n");
    await assert.rejects(
      ws.registry.get("edit_file")!.preview!(edit("absent", "x"), ws.ctx()),
      /oldText not found in src\/a.ts/,
    );
    await assert.rejects(
      ws.registry.get("edit_file")!.preview!(
        { path: "src/none.ts", edits: [{ oldText: "a", newText: "b" }] },
        ws.ctx(),
      ),
      /use write_file/,
    );
    assert.equal(existsSync(path.join(ws.root, "src/none.ts")), false);
  });
});
