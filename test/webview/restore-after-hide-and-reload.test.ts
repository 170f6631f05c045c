import assert from "node:assert/strict";
import { test } from "node:test";
import {
  assistantEv,
  CONFIG,
  conversation,
  helloWith,
  REF,
  skipReason,
  snapshot,
  useChat,
  userEv,
} from "../support/webview/harness";

const open = useChat();

test(
  "a reloaded view paints from its saved state, then asks only for what it missed",
  { skip: skipReason },
  async (t) => {
    const base = { sessionId: REF.sessionId, agentId: REF.agentId };
    const { page, host } = await open(t, (host) =>
      helloWith(snapshot(conversation(1, 4)))(host).on("catchUp", () => ({
        kind: "delta",
        events: [assistantEv(7, "Answer written while the view was hidden.")],
        running: false,
        pendingApprovals: [],
        title: "Renamed elsewhere",
      })),
    );
    await page.getByText("Question 3").waitFor();
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: { type: "session-event", ...base, event: userEv(5, "A live question") },
    });
    await host.event({
      type: "agent",
      folderKey: REF.folderKey,
      event: { type: "session-event", ...base, event: assistantEv(6, "A live answer") },
    });
    await page.getByText("A live answer").waitFor();
    // The state is saved shortly after a change (VS Code's setState).
    await page.waitForFunction(
      () => (sessionStorage.getItem("vscode-state") ?? "").includes("A live answer"),
      undefined,
      { timeout: 10_000 },
    );

    host.hold.add("catchUp");
    await page.reload();
    // Painted from state before the host answered anything.
    await page.getByText("A live answer").waitFor();
    await page.getByText("Question 1:").waitFor();
    await host.waitFor("catchUp");
    const hellos = host.sent.filter((s) => s.method === "hello");
    assert.deepEqual(hellos[1]!.params, { restore: REF }, "the reloaded view names the session it restored");
    assert.deepEqual(host.sent.find((s) => s.method === "catchUp")!.params, { ref: REF, afterSeq: 6 });
    await host.release("catchUp");
    await page.getByText("Answer written while the view was hidden.").waitFor();
    await page.getByRole("button", { name: /Renamed elsewhere/ }).waitFor();
    assert.equal(await page.getByText("A live answer").count(), 1, "nothing is shown twice");
  },
);

test(
  "a reloaded view shows the session the host switched to while it was hidden, not the one it saved",
  { skip: skipReason },
  async (t) => {
    const other = { ...REF, sessionId: "s2" };
    let switched = false;
    const { page, host } = await open(t, (host) =>
      host.on("hello", () => ({
        config: CONFIG,
        snapshot: switched
          ? snapshot([userEv(1, "Plan the release"), assistantEv(2, "There are three.")], {
              ref: other,
              title: "Other",
            })
          : snapshot(conversation(1, 4)),
      })),
    );
    await page.getByText("Question 3").waitFor();
    await page.waitForFunction(() => (sessionStorage.getItem("vscode-state") ?? "").includes("Question 3"), undefined, {
      timeout: 10_000,
    });
    // Hidden, then a command showed another session: the reloaded document's hello answers with it.
    switched = true;
    await page.reload();
    await host.waitFor("hello", 2);
    await page.getByText("There are three.").waitFor();
    await page.getByText("Question 3").waitFor({ state: "detached" });
    await host.frames();
    assert.equal(host.count("catchUp"), 0, "nothing of the replaced session is caught up");
    await page.waitForFunction(() => (sessionStorage.getItem("vscode-state") ?? "").includes('"s2"'), undefined, {
      timeout: 10_000,
    });
  },
);

test(
  "a switch event that reaches a reloading view before its hello is answered is not undone by a catch-up of the saved session",
  { skip: skipReason },
  async (t) => {
    const other = snapshot([userEv(1, "Plan the release"), assistantEv(2, "There are three.")], {
      ref: { ...REF, sessionId: "s2" },
      title: "Other",
    });
    const { page, host } = await open(t, helloWith(snapshot(conversation(1, 4))));
    await page.getByText("Question 3").waitFor();
    await page.waitForFunction(() => (sessionStorage.getItem("vscode-state") ?? "").includes("Question 3"), undefined, {
      timeout: 10_000,
    });
    host.hold.add("hello");
    await page.reload();
    await host.waitFor("hello", 2);
    await host.event({ type: "session-switched", snapshot: other });
    await page.getByText("There are three.").waitFor();
    // The host answers the hello with the session it switched to.
    host.on("hello", () => ({ config: CONFIG, snapshot: other }));
    await host.release("hello");
    await host.frames();
    assert.equal(host.count("catchUp"), 0, "nothing of the replaced session is caught up");
    assert.equal(await page.getByText("Question 3").count(), 0);
    await page.getByText("There are three.").waitFor();
  },
);
