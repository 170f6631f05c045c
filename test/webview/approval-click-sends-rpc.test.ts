import assert from "node:assert/strict";
import { test } from "node:test";
import { ev, helloWith, REF, skipReason, snapshot, useChat, userEv, violations } from "../support/webview/harness";
import { decided, EDIT_DIFF, pendingEdit } from "../support/webview/approvals";

const open = useChat();

const base = { sessionId: REF.sessionId, agentId: REF.agentId };
const DIFF = EDIT_DIFF;
const pending = pendingEdit;

function session() {
  return snapshot(
    [
      userEv(1, "Change b to 3"),
      ev(2, "assistant/message", {
        content: [
          { type: "text", text: "Editing." },
          {
            type: "tool-call",
            id: "call-1",
            name: "edit_file",
            arguments: { path: "src/a.ts", old: "const b = 2;", new: "const b = 3;" },
          },
        ],
      }),
    ],
    { running: true, pendingApprovals: [pending("call-1")] },
  );
}

test(
  "Approve sends the approve RPC for that call; the card says approved only when the host confirms",
  { skip: skipReason },
  async (t) => {
    const { page, host } = await open(t, (host) =>
      helloWith(session())(host).on("approve", () => ({ resolved: true })),
    );
    const card = page.getByRole("group", { name: /Tool edit_file/ });
    await card.getByRole("button", { name: "Approve", exact: true }).waitFor();
    assert.match((await card.textContent())!, /const b = 3;/, "the card shows the diff it asks about");
    await card.getByRole("button", { name: "Approve", exact: true }).click();
    await host.waitFor("approve");
    const sent = host.sent.find((s) => s.method === "approve")!;
    assert.deepEqual(sent.params, { ref: REF, toolCallId: "call-1", decision: { approved: true, scope: "once" } });
    // Sent, not decided: the buttons wait, disabled, and nothing says "approved" yet.
    await card.getByRole("status").filter({ hasText: "Sending your answer" }).waitFor();
    assert.equal(await card.getByRole("button", { name: "Approve", exact: true }).isDisabled(), true);
    assert.doesNotMatch((await card.textContent())!, /approved/);

    // The host confirms, then the tool finishes: the card follows.
    await decided(host, "call-1", 3, { decision: "approved", scope: "once" });
    await card.getByRole("button", { name: "Approve", exact: true }).waitFor({ state: "detached" });
    // The buttons go with approval-resolved; the outcome is drawn from the logged tool/approval,
    // which may land a frame later: wait for it (a one-shot read failed under load).
    await card.locator(".tool-decision", { hasText: /^approved$/ }).waitFor();
    // As the runtime sends it: the logged result (outcome and diff, what a reopened card shows too), then tool-finished.
    const details = { kind: "edit" as const, path: "src/a.ts", diff: DIFF, added: 1, removed: 1 };
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: {
        type: "session-event",
        ...base,
        event: ev(4, "tool/result", {
          toolCallId: "call-1",
          toolName: "edit_file",
          content: [{ type: "text", text: "edited src/a.ts" }],
          outcome: "done",
          details,
        }),
      },
    });
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: {
        type: "tool-finished",
        ...base,
        toolCallId: "call-1",
        name: "edit_file",
        outcome: "done",
        details: { kind: "edit", path: "src/a.ts", diff: DIFF, added: 1, removed: 1 },
      },
    });
    await page.getByRole("group", { name: "Tool edit_file: done" }).waitFor();

    // The diff link asks the host to open VS Code's diff editor for that call.
    await page.getByRole("button", { name: "Open diff" }).click();
    await host.waitFor("openDiff");
    assert.deepEqual(host.sent.find((s) => s.method === "openDiff")!.params, { ref: REF, toolCallId: "call-1" });
    assert.deepEqual(await violations(page), []);
  },
);

test("Deny and Allow for this session send their decisions", { skip: skipReason }, async (t) => {
  const snap = session();
  snap.page.events.push(
    ev(3, "assistant/message", {
      content: [{ type: "tool-call", id: "call-2", name: "run_command", arguments: { command: "npm test" } }],
    }),
  );
  snap.page.lastSeq = 3;
  snap.pendingApprovals.push({
    ...pending("call-2"),
    toolName: "run_command",
    kind: "command",
    summary: "Run npm test",
    preview: { kind: "command", command: "npm test", cwd: "." },
  });
  const { page, host } = await open(t, (host) => helloWith(snap)(host).on("approve", () => ({ resolved: true })));
  const edit = page.getByRole("group", { name: /Tool edit_file/ });
  const command = page.getByRole("group", { name: /Tool run_command/ });
  await command.getByRole("button", { name: "Allow for this session" }).click();
  await host.waitFor("approve");
  await edit.getByRole("button", { name: "Deny", exact: true }).click();
  await host.waitFor("approve", 2);
  const decisions = host.sent
    .filter((s) => s.method === "approve")
    .map((s) => [s.params.toolCallId, s.params.decision]);
  assert.deepEqual(decisions, [
    ["call-2", { approved: true, scope: "session" }],
    ["call-1", { approved: false }],
  ]);
  await decided(host, "call-1", 4, { decision: "denied" });
  await edit.getByText("denied").waitFor();
});

test(
  "an answer nothing waits for says so; an answer from the diff's title bar updates the card; Stop shows cancelled",
  { skip: skipReason },
  async (t) => {
    const snap = session();
    snap.page.events.push(
      ev(3, "assistant/message", {
        content: [{ type: "tool-call", id: "call-2", name: "edit_file", arguments: { path: "src/b.ts" } }],
      }),
    );
    snap.page.lastSeq = 3;
    snap.pendingApprovals.push(pending("call-2"));
    const { page, host } = await open(t, (host) => helloWith(snap)(host).on("approve", () => ({ resolved: false })));
    const [first, second] = [
      page.getByRole("group", { name: /Tool edit_file/ }).first(),
      page.getByRole("group", { name: /Tool edit_file/ }).last(),
    ];
    await first.getByRole("button", { name: "Approve", exact: true }).click();
    await first.getByText("Nothing waits for this answer any more").waitFor();
    assert.equal(
      await first.getByRole("button", { name: "Approve", exact: true }).isDisabled(),
      false,
      "still answerable if it was a glitch",
    );
    // Accepted in the diff editor's title bar: the host's event alone updates the card.
    await decided(host, "call-1", 4, { decision: "approved", scope: "once" });
    await page.getByRole("group", { name: "Tool edit_file: running" }).getByText("approved").waitFor();
    // Stop resolves the other as cancelled.
    await decided(host, "call-2", 5, { decision: "denied", reason: "the turn was cancelled" });
    await page
      .getByRole("group", { name: "Tool edit_file: cancelled" })
      .getByText("cancelled", { exact: true })
      .last()
      .waitFor();
    assert.match((await second.textContent())!, /cancelled/);
  },
);

test(
  "Undo on an applied edit sends undoEdit; the logged tool/undo turns it into Undone, also when replayed",
  { skip: skipReason },
  async (t) => {
    const done = snapshot([
      userEv(1, "Change b to 3"),
      ev(2, "assistant/message", {
        content: [{ type: "tool-call", id: "call-1", name: "edit_file", arguments: { path: "src/a.ts" } }],
      }),
      ev(3, "tool/approval", { toolCallId: "call-1", decision: "approved", by: "user", scope: "once" }),
      ev(4, "tool/result", {
        toolCallId: "call-1",
        toolName: "edit_file",
        content: [{ type: "text", text: "edited src/a.ts" }],
        details: { kind: "edit", path: "src/a.ts", diff: DIFF, added: 1, removed: 1 },
      }),
    ]);
    const { page, host } = await open(t, (host) => helloWith(done)(host).on("undoEdit", () => ({ path: "src/a.ts" })));
    const card = page.getByRole("group", { name: "Tool edit_file: done" });
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: {
        type: "tool-finished",
        ...base,
        toolCallId: "call-1",
        name: "edit_file",
        outcome: "done",
        details: { kind: "edit", path: "src/a.ts", diff: DIFF, added: 1, removed: 1 },
      },
    });
    await card.getByRole("button", { name: "Undo", exact: true }).click();
    await host.waitFor("undoEdit");
    assert.deepEqual(host.sent.find((s) => s.method === "undoEdit")!.params, { ref: REF, toolCallId: "call-1" });
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: {
        type: "session-event",
        ...base,
        event: ev(5, "tool/undo", { toolCallId: "call-1", path: "src/a.ts" }, false),
      },
    });
    await card.getByRole("status").filter({ hasText: "Undone: src/a.ts is back" }).waitFor();
    assert.equal(await card.getByRole("button", { name: "Undo", exact: true }).count(), 0);
    assert.deepEqual(await violations(page), []);
  },
);

test("a reopened chat shows an undone edit as undone, with no Undo", { skip: skipReason }, async (t) => {
  const replayed = snapshot([
    userEv(1, "Change b to 3"),
    ev(2, "assistant/message", {
      content: [{ type: "tool-call", id: "call-1", name: "edit_file", arguments: { path: "src/a.ts" } }],
    }),
    ev(3, "tool/approval", { toolCallId: "call-1", decision: "approved", by: "user", scope: "once" }),
    ev(4, "tool/result", {
      toolCallId: "call-1",
      toolName: "edit_file",
      content: [{ type: "text", text: "edited src/a.ts" }],
    }),
    ev(5, "tool/undo", { toolCallId: "call-1", path: "src/a.ts" }, false),
  ]);
  const { page } = await open(t, helloWith(replayed));
  const card = page.getByRole("group", { name: "Tool edit_file: done" });
  await card.getByRole("status").filter({ hasText: "Undone: src/a.ts is back" }).waitFor();
  assert.equal(await card.getByRole("button", { name: "Undo", exact: true }).count(), 0);
});
