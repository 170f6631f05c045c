import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ApprovalDecision } from "../../../core/protocol";
import type { SessionApprovalRequest } from "../../../core/runtime/types";
import { startHarness } from "../../agent/harness";
import { wire } from "../../support/provider-server";
import { ChatController, FOLDER, recordingActions, runtimesOf, view } from "./helpers";
import { toolCallsThen } from "../../support/tool-turn";

test("a malformed webview message gets an error reply and changes nothing", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "unused" }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const actions = recordingActions();
  const v = view(controller, actions);
  const before = (await h.runtime.list()).length;
  const bad: unknown[] = [
    null,
    "prompt",
    { kind: "request", id: 1, method: "nope", params: {} },
    { kind: "request", id: 2, method: "prompt", params: { ref: { folderKey: FOLDER, agentId: "code" }, text: "hi" } },
    { kind: "request", id: 3, method: "newSession", params: { agentId: "code", extra: true } },
    { kind: "request", id: 4, method: "runCommand", params: { command: "workbench.action.terminal.sendSequence" } },
    {
      kind: "request",
      id: 5,
      method: "rename",
      params: { ref: { folderKey: FOLDER, agentId: "code", sessionId: "session-test" }, title: "   " },
    },
  ];
  for (const m of bad) await v.server.handle(m);
  assert.equal(v.posted.length, bad.length, "one reply each");
  for (const reply of v.posted) {
    assert.equal(reply.kind, "response");
    assert.ok("error" in reply && reply.error.code === "invalid", JSON.stringify(reply));
  }
  assert.deepEqual(
    v.posted.map((r) => (r.kind === "response" ? r.id : undefined)),
    [null, null, 1, 2, 3, 4, 5],
  );
  assert.equal((await h.runtime.list()).length, before, "no session was created");
  assert.deepEqual(actions.calls, [], "no command ran");
  assert.equal(h.server.requests.length, 0, "no model call");
  assert.equal(h.agent.session.title.title, undefined, "nothing was renamed");
});

test("open sends the Active page once; a run streams only deltas of the shown session; catch-up sends what was missed", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "The answer is 42." }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const v = view(controller, recordingActions());
  const { config } = await v.request("hello", {});
  assert.equal(config.providerConfigured, true);
  assert.deepEqual(
    config.agents.map((a: { id: string }) => a.id),
    ["code", "ask"],
  );
  const ref = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  const snap = await v.request("switchSession", { ref });
  assert.equal(snap.page.events.length, 0);
  assert.equal(snap.running, false);

  // Another session's run must not reach this view.
  const other = h.runtime.create("code");
  await h.runtime.prompt({ agentId: "code", sessionId: other.id }, "elsewhere");
  assert.equal(v.agentEvents().length, 0, "events of other sessions are not forwarded");

  const accepted = await v.request("prompt", { ref, text: "What is the answer?" });
  assert.deepEqual(accepted, { steered: false });
  await v.until((e) => e.type === "turn-ended");
  const events = v.agentEvents();
  assert.ok(events.every((e) => e.sessionId === ref.sessionId));
  const appended = events.flatMap((e) => (e.type === "session-event" ? [e.event] : []));
  assert.ok(appended.some((e) => e.type === "user/message"));
  const final = appended.find((e) => e.type === "assistant/message")!;
  assert.match(JSON.stringify(final.data), /The answer is 42\./);
  assert.equal(
    v.posted.filter((m) => m.kind === "event" && m.event.type === "session-switched").length,
    0,
    "the conversation is never re-sent",
  );

  // A view that was hidden after the user message catches up with the rest only.
  const userSeq = appended.find((e) => e.type === "user/message")!.seq;
  const delta = await v.request("catchUp", { ref, afterSeq: userSeq });
  assert.equal(delta.kind, "delta");
  assert.ok(delta.events.every((e: { seq: number }) => e.seq > userSeq));
  assert.ok(delta.events.some((e: { type: string }) => e.type === "assistant/message"));
  assert.equal(delta.running, false);
  // A seq the session never had: start over.
  assert.equal((await v.request("catchUp", { ref, afterSeq: 10_000 })).kind, "reset");
});

test("an approval shown in a visible chat waits for Approve; an invisible chat declines to ask", async (t) => {
  let controller: ChatController | undefined;
  const asked: SessionApprovalRequest[] = [];
  const h = await startHarness(
    t,
    toolCallsThen([{ id: "w1", name: "write_file", arguments: { path: "out.txt", content: "hello" } }], {
      text: "Wrote it.",
    }),
    {
      agent: {
        policy: "reads",
        approve: (req: SessionApprovalRequest, signal: AbortSignal) => {
          asked.push(req);
          if (!controller!.approvals.shows({ folderKey: FOLDER, agentId: req.agentId, sessionId: req.sessionId }))
            return Promise.resolve<ApprovalDecision>({ approved: false, reason: "no chat" });
          return controller!.approvals.decisions.ask(
            { folderKey: FOLDER, agentId: req.agentId, sessionId: req.sessionId, toolCallId: req.toolCallId },
            signal,
          ).decision;
        },
      } as never,
    },
  );
  controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller!.dispose());
  let visible = true;
  const v = view(controller, recordingActions(), () => visible);
  const ref = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  await v.request("switchSession", { ref });
  await v.request("prompt", { ref, text: "write out.txt" });
  await v.until((e) => e.type === "approval-requested");
  assert.ok(!existsSync(join(h.root, "out.txt")), "nothing runs before the answer");
  // A restored view sees the open approval in its snapshot.
  const snap = await v.request("switchSession", { ref });
  assert.deepEqual(
    snap.pendingApprovals.map((a: { toolCallId: string }) => a.toolCallId),
    ["w1"],
  );

  assert.deepEqual(await v.request("approve", { ref, toolCallId: "w1", decision: { approved: true, scope: "once" } }), {
    resolved: true,
  });
  await v.until((e) => e.type === "turn-ended");
  assert.equal(readFileSync(join(h.root, "out.txt"), "utf8"), "hello");
  assert.deepEqual(
    await v.request("approve", { ref, toolCallId: "w1", decision: { approved: true } }),
    { resolved: false },
    "a second answer changes nothing",
  );

  visible = false;
  assert.equal(
    controller.approvals.shows({ folderKey: FOLDER, agentId: "code", sessionId: ref.sessionId }),
    false,
    "no visible chat: the approver asks elsewhere too",
  );
  visible = true;
  assert.equal(
    controller.approvals.shows({ folderKey: "file:///other", agentId: "code", sessionId: ref.sessionId }),
    false,
    "a session of the same id in another folder is not this view's",
  );
  assert.equal(
    controller.approvals.shows({ folderKey: FOLDER, agentId: "ask", sessionId: ref.sessionId }),
    false,
    "nor another agent's",
  );
  // A cancelled run answers its own prompt.
  const abort = new AbortController();
  const waiting = controller.approvals.decisions.ask(
    { folderKey: FOLDER, agentId: "code", sessionId: ref.sessionId, toolCallId: "w2" },
    abort.signal,
  );
  abort.abort();
  assert.deepEqual(await waiting.decision, { approved: false, reason: "the turn was cancelled" });
});

test("rename, fork, select model, attachments and read-only refusal", async (t) => {
  let restricted: string | undefined;
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "ok" }) }));
  const controller = new ChatController(runtimesOf(h.runtime, () => restricted));
  t.after(() => controller.dispose());
  const actions = recordingActions();
  const v = view(controller, actions);
  const ref = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  await v.request("switchSession", { ref });
  await v.request("selectModel", { ref, model: { provider: "test", model: "gpt-4o-mini" } });
  await v.request("prompt", { ref, text: "look at this", attachments: ["src/a.ts"] });
  await v.until((e) => e.type === "turn-ended");
  const body = h.bodies()[0];
  assert.equal(body.model, "gpt-4o-mini", "the view's model choice is used");
  assert.match(JSON.stringify(body.messages), /Attached file `src\/a.ts`:.*file text/);

  await v.request("rename", { ref, title: "My title" });
  const list = await v.request("listSessions", {});
  assert.equal(list.find((s: { ref: { sessionId: string } }) => s.ref.sessionId === ref.sessionId).title, "My title");

  const userSeq = h.agent.session.events().find((e) => e.type === "user/message")!.seq;
  const fork = await v.request("fork", { ref, atSeq: userSeq });
  assert.notEqual(fork.ref.sessionId, ref.sessionId);
  assert.equal(
    fork.page.events.filter((e: { type: string }) => e.type === "assistant/message").length,
    0,
    "forked at the user message",
  );

  await v.request("openLink", { folderKey: FOLDER, href: "https://example.com" });
  await v.request("runCommand", { command: "downcity.setApiKey" });
  assert.deepEqual(
    actions.calls.map((c) => c[0]),
    ["readAttachment", "openLink", "runCommand"],
  );

  restricted = "Restricted Mode: the folder is not trusted";
  const snap = await v.request("switchSession", { ref });
  assert.equal(snap.readOnly, restricted);
  await assert.rejects(
    v.request("prompt", { ref, text: "run" }),
    (e: Error & { code?: string }) => e.code === "read-only" && e.message === restricted,
  );
  assert.equal(h.server.requests.length, 1, "no model call once read-only");
});

test("a session shown from outside while the view was hidden wins over the session the reloaded view restores", async (t) => {
  const { h, controller, v, first, second } = await twoSessions(t);
  await v.request("hello", {});
  await v.request("switchSession", { ref: first });
  // Hidden: the document is gone, so the switch event posted now never reaches it.
  await v.server.show(second);
  // Shown again: the new document says hello with the session it had saved.
  const back = await v.request("hello", { restore: first });
  assert.equal(back.snapshot.ref.sessionId, second.sessionId, "the command's session is shown, not the saved one");
  // Revealing the view reloads its document at once: its hello can arrive while the switch is still opening.
  const third = { folderKey: FOLDER, agentId: "code", sessionId: h.runtime.create("code").id };
  const switching = v.server.show(third);
  const racing = await v.request("hello", { restore: second });
  await switching;
  assert.equal(
    racing.snapshot.ref.sessionId,
    third.sessionId,
    "a hello during the switch answers with the switched-to session",
  );
  // Later reloads restore what the view itself shows.
  await v.request("switchSession", { ref: first });
  const again = await v.request("hello", { restore: first });
  assert.equal(again.snapshot.ref.sessionId, first.sessionId);
});

test("a session shown from outside while the reloaded view catches up on its saved one is the session the view follows", async (t) => {
  const { h, controller, v, first, second } = await twoSessions(t);
  await v.request("hello", { restore: first });
  // The catch-up is answered only after the command's switch has been shown.
  let answer: () => void = () => {};
  const held = new Promise<void>((resolve) => (answer = resolve));
  const catchUp = controller.catchUp.bind(controller);
  controller.catchUp = async (ref, afterSeq) => {
    const result = await catchUp(ref, afterSeq);
    await held;
    return result;
  };
  const catching = v.request("catchUp", { ref: first, afterSeq: 0 });
  await v.server.show(second);
  answer();
  await catching;
  assert.equal(
    v.server.ref?.sessionId,
    second.sessionId,
    "the view follows the switched-to session, not the one it caught up on",
  );
  await h.runtime.prompt(second, "follow me");
  assert.ok(
    v.agentEvents().some((e) => e.sessionId === second.sessionId),
    "the shown session's events are forwarded",
  );
});

/** A view over a real runtime with two sessions of the code agent. */
async function twoSessions(t: { after(fn: () => unknown): void }) {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "unused" }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const v = view(controller, recordingActions());
  const first = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  const second = { folderKey: FOLDER, agentId: "code", sessionId: h.runtime.create("code").id };
  return { h, controller, v, first, second };
}
