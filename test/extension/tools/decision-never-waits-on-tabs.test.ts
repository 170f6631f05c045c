import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it, type TestContext } from "node:test";
import * as vscode from "vscode";
import { ACCEPT_EDIT_COMMAND, EDIT_PROPOSAL_COMMAND, SHOW_REVIEW_COMMAND } from "../../../extension/tools/edit-reviews";
import { commands } from "../../support/vscode-fake/index";
import { editorWorkspace, text } from "./helpers";

const edit = { path: "src/a.ts", edits: [{ oldText: "one", newText: "two" }] };
/** A hang fails here, not at the suite's end: nothing in these cases waits on a clock. */
const HANG = { timeout: 5_000 };

/** The workspace with src/a.ts reading "one". */
function withFile(t: TestContext) {
  const ws = editorWorkspace(t);
  return { ws, file: ws.write("src/a.ts", "one\n") };
}

/** Runs `open` for every vscode.diff instead of the fake's immediate one (`show` is the fake's: the tab appears). */
function diffOpensAs(t: TestContext, open: (show: () => Promise<unknown>) => Promise<unknown>): void {
  const execute = commands.executeCommand;
  commands.executeCommand = async (id: string, ...args: unknown[]) =>
    id === "vscode.diff" ? open(() => execute(id, ...args)) : execute(id, ...args);
  t.after(() => {
    commands.executeCommand = execute;
  });
}

/**
 * approve-ui step 06 (issue 19): the user closed the review's tab, brought it back with the
 * card's Open diff, clicked Approve, and the card stayed on "Sending your answer…" with no
 * `tool/approval` logged. The approver's answer waited on the workbench's tab calls; these
 * play a workbench that never answers them.
 */
describe("an answered review never waits on the workbench's tabs", () => {
  it(
    "closing the diff's tabs never settles: the card's Approve still decides and the edit is written",
    HANG,
    async (t) => {
      const { ws, file } = withFile(t);
      let closing = 0;
      vscode.window.tabGroups.close = (() => {
        closing++;
        return new Promise<boolean>(() => {});
      }) as typeof vscode.window.tabGroups.close;
      const result = await ws.reviewed("edit_file", edit, {
        answer: async ({ key }) => {
          ws.editor.tabs.splice(0); // the user closes the review's tab
          assert.equal(
            await commands.executeCommand("downcity.tools.showReview", key),
            true,
            "Open diff shows it again",
          );
          assert.equal(ws.editor.tabs.length, 1);
          assert.equal(ws.card(key.toolCallId, { approved: true, scope: "once" }), true);
        },
      });
      assert.equal(result.approved, true);
      assert.match(text(result.output), /src\/a\.ts/);
      assert.equal(readFileSync(file, "utf8"), "two\n");
      assert.ok(closing >= 1, "the review still asked for its tab to close");
    },
  );

  it(
    "opening the diff never settles (the tab shows, the open never finishes): the card still decides",
    HANG,
    async (t) => {
      const { ws, file } = withFile(t);
      diffOpensAs(t, async (show) => {
        await show();
        return new Promise<unknown>(() => {});
      });
      const result = await ws.reviewed("edit_file", edit, {
        answer: ({ key }) => ws.card(key.toolCallId, { approved: true, scope: "once" }),
      });
      assert.equal(result.approved, true);
      assert.equal(readFileSync(file, "utf8"), "two\n");
      assert.equal(ws.editor.tabs.length, 0, "the tab it showed is closed all the same");
    },
  );

  it(
    "a diff tab that appears only after the answer (its open was slow) is closed once the open settles",
    HANG,
    async (t) => {
      const { ws } = withFile(t);
      let finishOpen!: () => void;
      const opened = new Promise<void>((resolve) => (finishOpen = resolve));
      let tabShown!: () => void;
      const shown = new Promise<void>((resolve) => (tabShown = resolve));
      diffOpensAs(t, async (show) => {
        await opened;
        await show();
        tabShown();
      });
      const groups = vscode.window.tabGroups;
      const close = groups.close.bind(groups);
      const closed = new Promise<void>((resolve) => {
        const closing = async (tabs: readonly vscode.Tab[]) => {
          const done = await close(tabs);
          resolve();
          return done;
        };
        groups.close = closing as unknown as typeof groups.close;
      });
      const result = await ws.reviewed("edit_file", edit, {
        answer: ({ key }) => ws.card(key.toolCallId, { approved: false }),
      });
      assert.equal(result.approved, false, "decided before the diff was even shown");
      assert.equal(ws.editor.tabs.length, 0);
      finishOpen();
      await shown;
      await closed;
      assert.equal(ws.editor.tabs.length, 0, "the late tab is closed");
    },
  );
});

/**
 * Every vscode.diff after the review's first waits until `open()`; `reached` settles once
 * one waits (a gate on the second diff: Open diff's or Edit Proposal's).
 */
function laterDiffsWait(t: TestContext) {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  let opens = 0;
  diffOpensAs(t, async (show) => {
    if (++opens > 1) {
      reach();
      await opened;
    }
    return show();
  });
  return { open: () => open(), reached };
}

/** Every openTextDocument of untitled content waits until `open()`; `reached` settles once one waits. */
function copiesWait(t: TestContext) {
  let open!: () => void;
  let reach!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const openTextDocument = vscode.workspace.openTextDocument;
  vscode.workspace.openTextDocument = (async (arg: unknown) => {
    if (arg && typeof arg === "object" && "content" in arg) {
      reach();
      await opened;
    }
    return (openTextDocument as (a: unknown) => Promise<vscode.TextDocument>)(arg);
  }) as typeof vscode.workspace.openTextDocument;
  t.after(() => {
    vscode.workspace.openTextDocument = openTextDocument;
  });
  return { open: () => open(), reached };
}

/** Settles once a tab close from now on leaves no tab open (a hang here is a tab that outlived its review). */
function allTabsClosed(ws: ReturnType<typeof editorWorkspace>): Promise<void> {
  const groups = vscode.window.tabGroups;
  const close = groups.close.bind(groups);
  return new Promise<void>((resolve) => {
    groups.close = (async (tabs: readonly vscode.Tab[]) => {
      const done = await close(tabs);
      if (ws.editor.tabs.length === 0) resolve();
      return done;
    }) as unknown as typeof groups.close;
  });
}

/**
 * The diffs a pending review opens after its first one (the card's Open diff, the title
 * bar's Edit Proposal) may still be opening when the answer lands: their tabs must close
 * too, or a tab with Accept / Reject stays open on a review that is gone (approve-ui step
 * 07 then finds a "Proposed by Downcity" tab that Stop never closes).
 */
describe("no tab outlives its answered review", () => {
  it("Open diff still opening when the card approves: the re-opened tab is closed once it shows", HANG, async (t) => {
    const { ws, file } = withFile(t);
    const reopen = laterDiffsWait(t);
    const result = await ws.reviewed("edit_file", edit, {
      answer: async ({ key }) => {
        ws.editor.tabs.splice(0); // the user closes the review's tab
        void commands.executeCommand(SHOW_REVIEW_COMMAND, key); // the card's Open diff
        await reopen.reached;
        assert.equal(ws.card(key.toolCallId, { approved: true, scope: "once" }), true);
      },
    });
    assert.equal(result.approved, true);
    assert.equal(readFileSync(file, "utf8"), "two\n");
    reopen.open();
    await allTabsClosed(ws);
    assert.equal(ws.editor.tabs.length, 0, "the re-opened review tab is closed");
  });

  it(
    "Edit Proposal still opening when the title bar accepts: its tab is closed, its copy emptied first",
    HANG,
    async (t) => {
      const { ws, file } = withFile(t);
      const editing = laterDiffsWait(t);
      let copy: vscode.TextDocument | undefined;
      const result = await ws.reviewed("edit_file", edit, {
        answer: async () => {
          void commands.executeCommand(EDIT_PROPOSAL_COMMAND);
          await editing.reached;
          copy = ws.reviews.find()?.editable;
          assert.equal(await commands.executeCommand(ACCEPT_EDIT_COMMAND), true);
        },
      });
      assert.equal(result.approved, true);
      assert.equal(readFileSync(file, "utf8"), "two\n");
      editing.open();
      await allTabsClosed(ws);
      assert.equal(ws.editor.tabs.length, 0, "the editing tab is closed too");
      assert.equal(copy?.getText(), "", "the copy was emptied, so its close asks nothing");
    },
  );

  it("Edit Proposal's copy still being made when the card denies: no editing diff opens at all", HANG, async (t) => {
    const { ws, file } = withFile(t);
    const making = copiesWait(t);
    let edited: Promise<unknown> | undefined;
    const result = await ws.reviewed("edit_file", edit, {
      answer: async ({ key }) => {
        edited = Promise.resolve(commands.executeCommand(EDIT_PROPOSAL_COMMAND));
        await making.reached;
        assert.equal(ws.card(key.toolCallId, { approved: false }), true);
      },
    });
    assert.equal(result.approved, false);
    making.open();
    assert.equal(await edited, false, "Edit Proposal says the review is gone");
    assert.deepEqual(
      ws.editor.diffs.map((d) => d.title),
      ["a.ts — Proposed by Downcity"],
      "no editing diff for an answered review",
    );
    assert.equal(readFileSync(file, "utf8"), "one\n");
  });
});
