import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import type { ToolContext } from "../../../core/tools/types";
import { createApprover, type DecisionKey } from "../../../extension/tools";
import { commands } from "../../support/vscode-fake/index";
import { editorWorkspace, type EditorWorkspace } from "./helpers";

// Local servers (llama.cpp, Ollama) number tool calls call_0, call_1… in every session: two sessions of one
// folder propose "call_0" at the same time, and neither may see, answer or apply the other's.
const ID = "call_0";
const edit = (file: string, oldText: string, newText: string) => ({ path: file, edits: [{ oldText, newText }] });

/** What the agent loop does up to the question: preview the edit, then ask the folder's approver. */
async function propose(ws: EditorWorkspace, sessionId: string, args: ReturnType<typeof edit>) {
  const ctx: ToolContext = ws.ctx({ toolCallId: ID, sessionId });
  const parsed = ws.registry.parse("edit_file", args);
  if (!parsed.ok) throw new Error(parsed.error);
  const preview = await parsed.tool.preview!(parsed.args, ctx);
  const key: DecisionKey = { ...ws.key(ID), sessionId };
  const approve = createApprover({
    folderKey: key.folderKey,
    proposals: ws.tools.proposals,
    reviews: ws.reviews,
    decisions: ws.decisions,
  });
  const asked = approve(
    {
      sessionId,
      agentId: key.agentId,
      toolCallId: ID,
      toolName: "edit_file",
      kind: parsed.tool.kind,
      arguments: args,
      summary: "edit",
      ...(preview ? { preview } : {}),
    },
    ctx.signal,
  );
  return { ctx, key, asked, run: () => ws.registry.run("edit_file", args, ctx) };
}

describe("two sessions of one folder proposing the same call id", () => {
  it("each review shows and applies its own session's text", async (t) => {
    const ws = editorWorkspace(t);
    const a = ws.write("src/a.ts", "const a = 1;\n");
    const b = ws.write("src/b.ts", "const b = 1;\n");
    const first = await propose(ws, "s1", edit("src/a.ts", "a = 1", "a = 2"));
    const second = await propose(ws, "s2", edit("src/b.ts", "b = 1", "b = 2"));
    assert.equal(ws.reviews.size, 2, "both reviews are open");
    const [shownA, shownB] = ws.editor.diffs;
    assert.equal(ws.editor.provided(shownA!.right), "const a = 2;\n", "the first diff serves the first proposal");
    assert.equal(ws.editor.provided(shownB!.right), "const b = 2;\n");

    assert.equal(ws.card(ID, { approved: true, scope: "once" }), true, "the card answers session s1's call");
    assert.equal((await first.asked).approved, true);
    const out = await first.run();
    assert.equal(out.isError, undefined, JSON.stringify(out.content));
    assert.equal(readFileSync(a, "utf8"), "const a = 2;\n", "the accepted proposal is written");
    assert.equal(readFileSync(b, "utf8"), "const b = 1;\n", "the other session's proposal is not applied");
    assert.equal(ws.reviews.size, 1, "the other session's review still waits");
    assert.equal(ws.editor.provided(shownB!.right), "const b = 2;\n", "and still serves its text");

    assert.equal(ws.decisions.answer(second.key, { approved: true, scope: "once" }), true);
    assert.equal((await second.asked).approved, true);
    await second.run();
    assert.equal(readFileSync(b, "utf8"), "const b = 2;\n");
  });

  it("the title bar's Accept on one session's diff answers that session, on the same file too", async (t) => {
    const ws = editorWorkspace(t);
    const a = ws.write("src/a.ts", "const a = 1;\n");
    const first = await propose(ws, "s1", edit("src/a.ts", "a = 1", "a = 2"));
    const second = await propose(ws, "s2", edit("src/a.ts", "a = 1", "a = 3"));
    const [, shownB] = ws.editor.diffs;
    assert.notEqual(ws.editor.diffs[0]!.right.toString(), shownB!.right.toString(), "each diff has its own URI");
    assert.equal(await commands.executeCommand("downcity.acceptEdit", shownB!.right), true);
    assert.equal((await second.asked).approved, true, "the second session's decision is answered");
    await second.run();
    assert.equal(readFileSync(a, "utf8"), "const a = 3;\n", "its text is written");
    assert.equal(ws.reviews.size, 1, "the first session's review still waits");
    assert.equal(ws.decisions.answer(first.key, { approved: false }), true);
    assert.equal((await first.asked).approved, false);
  });

  it("undo and the applied diff find the session's own edit", async (t) => {
    const ws = editorWorkspace(t);
    const a = ws.write("src/a.ts", "const a = 1;\n");
    const b = ws.write("src/b.ts", "const b = 1;\n");
    await ws.run("edit_file", edit("src/a.ts", "a = 1", "a = 2"), { toolCallId: ID, sessionId: "s1" });
    await ws.run("edit_file", edit("src/b.ts", "b = 1", "b = 2"), { toolCallId: ID, sessionId: "s2" });
    assert.equal(await ws.tools.showAppliedDiff(ws.key(ID)), true);
    const shown = ws.editor.diffs[0]!;
    assert.equal(shown.right.fsPath, a, "session s1's applied diff is of its own file");
    assert.equal(ws.editor.provided(shown.left), "const a = 1;\n");
    assert.deepEqual(await ws.tools.undoEdit(ws.key(ID)), { path: "src/a.ts" });
    assert.equal(readFileSync(a, "utf8"), "const a = 1;\n", "session s1's edit is undone");
    assert.equal(readFileSync(b, "utf8"), "const b = 2;\n", "session s2's is not");
    assert.deepEqual(await ws.tools.undoEdit({ ...ws.key(ID), sessionId: "s2" }), { path: "src/b.ts" });
    assert.equal(readFileSync(b, "utf8"), "const b = 1;\n");
  });
});
