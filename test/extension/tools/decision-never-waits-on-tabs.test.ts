import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it, type TestContext } from "node:test";
import * as vscode from "vscode";
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
