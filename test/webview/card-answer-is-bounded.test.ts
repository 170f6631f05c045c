import assert from "node:assert/strict";
import { describe, it, type TestContext } from "node:test";
import type { ChatMethod, ChatParams, ChatResult } from "../../core/protocol";
import { answerApproval, ANSWER_MS, type CardHost } from "../../webview/card-actions";
import { Conversation } from "../../webview/conversation";

const REF = { folderKey: "file:///ws", agentId: "code", sessionId: "s1" };
const APPROVE = { approved: true, scope: "once" } as const;

/** A card waiting for approval, its host's approve RPC answered by `reply` (never, when it returns a pending promise). */
function waitingCard(t: TestContext, reply: () => Promise<unknown>, shown: { ref: typeof REF } = { ref: REF }) {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const conversation = new Conversation();
  conversation.requestApproval({
    type: "approval-requested",
    toolCallId: "call-1",
    toolName: "edit_file",
    kind: "edit",
    summary: "edit src/a.ts",
  } as Parameters<Conversation["requestApproval"]>[0]);
  const sent: string[] = [];
  const host: CardHost = {
    ref: () => shown.ref,
    conversation,
    call: <M extends ChatMethod>(method: M, _params: ChatParams<M>) => {
      sent.push(method);
      return reply() as Promise<ChatResult<M> | undefined>;
    },
    refresh: () => {},
  };
  const state = () => {
    let seen!: { answering?: boolean; message?: string; status: string };
    conversation.tool("call-1", (s) => (seen = { ...s }));
    return seen;
  };
  return { host, state, sent, tick: (ms: number) => t.mock.timers.tick(ms) };
}

describe("a card's answer never waits without a bound (approve-ui step 06)", () => {
  it("no reply from the host: after ANSWER_MS the card says so and answers again", async (t) => {
    const card = waitingCard(t, () => new Promise(() => {}));
    void answerApproval(card.host, "call-1", APPROVE);
    assert.equal(card.state().answering, true, "Sending your answer…");
    card.tick(ANSWER_MS - 1);
    assert.equal(card.state().answering, true, "still within the bound");
    card.tick(1);
    const after = card.state();
    assert.equal(after.answering, false, "the buttons work again");
    assert.equal(after.status, "approval");
    assert.match(after.message ?? "", /No reply from VS Code after 20 s.*Answer again, or Stop/);
    void answerApproval(card.host, "call-1", APPROVE);
    assert.deepEqual(card.sent, ["approve", "approve"]);
    assert.equal(card.state().message, undefined, "a new answer clears the old word");
  });

  it("the host took the answer but no outcome followed: the card says that instead", async (t) => {
    const card = waitingCard(t, async () => ({ resolved: true }));
    await answerApproval(card.host, "call-1", APPROVE);
    assert.equal(card.state().answering, true, "waits for approval-resolved");
    card.tick(ANSWER_MS);
    assert.equal(card.state().answering, false);
    assert.match(card.state().message ?? "", /took your answer, but the run has not confirmed it/);
  });

  it("the outcome arrives in time: the bound changes nothing", async (t) => {
    const card = waitingCard(t, async () => ({ resolved: true }));
    await answerApproval(card.host, "call-1", APPROVE);
    card.host.conversation.tool("call-1", (s) => {
      s.answering = false; // what approval-resolved does
      s.status = "running";
    });
    card.tick(ANSWER_MS);
    assert.equal(card.state().message, undefined);
    assert.equal(card.state().status, "running");
  });

  it("an earlier answer's bound leaves a later answer's wait alone", async (t) => {
    const card = waitingCard(t, () => new Promise(() => {}));
    void answerApproval(card.host, "call-1", APPROVE);
    card.tick(ANSWER_MS / 2);
    void answerApproval(card.host, "call-1", { approved: false });
    card.tick(ANSWER_MS / 2);
    assert.equal(card.state().answering, true, "the second answer has its own bound");
    card.tick(ANSWER_MS / 2);
    assert.equal(card.state().answering, false);
  });

  it("another session's answer of the same call id leaves this session's card alone", async (t) => {
    // Local servers send call_0 in every session: the view switched to session s2, whose call has the same id.
    let replyToFirst!: (r: unknown) => void;
    const replies = [new Promise((resolve) => (replyToFirst = resolve)), new Promise(() => {})];
    const shown = { ref: REF };
    const card = waitingCard(t, () => replies.shift()!, shown);
    const first = answerApproval(card.host, "call-1", APPROVE);
    shown.ref = { ...REF, sessionId: "s2" }; // the conversation now shows s2's card of the same id
    card.tick(ANSWER_MS / 2);
    void answerApproval(card.host, "call-1", APPROVE);
    assert.equal(card.state().answering, true, "s2's card is sending its answer");
    replyToFirst({ resolved: false }); // s1's decision was gone meanwhile
    await first;
    assert.equal(card.state().answering, true, "s1's reply does not end s2's wait");
    assert.equal(card.state().message, undefined);
    card.tick(ANSWER_MS / 2);
    assert.equal(card.state().answering, true, "nor does s1's bound");
    card.tick(ANSWER_MS / 2);
    assert.equal(card.state().answering, false, "s2's own bound ends it");
    assert.match(card.state().message ?? "", /No reply from VS Code/);
  });
});
