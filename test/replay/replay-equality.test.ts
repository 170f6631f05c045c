import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { AgentEvent, SessionRef, ChatSnapshot } from "../../core/protocol";
import type { ProblemItem } from "../../webview/conversation";
import type { RenderedItem } from "../../webview/rendered";
import { isSummaryRequest } from "../compaction/helpers";
import { startProviderServer, wire, type ScriptedReply } from "../support/provider-server";
import { tempDir } from "../support/temp";
import { fileMatchesUnder, HostProcess, reloadedView, ViewModel } from "./helpers";
import { sessionPaths } from "../../core/storage";

/**
 * Issue 20 item 1: one rendering, live or replayed. Each scenario runs in a real host
 * process (runtime + controller + a view's RPC) against a loopback provider; the chat's
 * rendered model is snapshotted live, after switching away and back, after the host is
 * SIGKILLed and the folder reopened, and after a window reload (graceful host restart, the
 * webview's saved state and its catch-up). They are equal, except for the recovered
 * "interrupted" marker of the answer the crash cut off.
 */

type Rendered = { title?: string; items: RenderedItem[] };

const for_ = (sessionId: string) => (e: AgentEvent) => e.sessionId === sessionId;

test(
  "the chat's rendered model is the same live, after a switch, after SIGKILL and after a reload",
  { timeout: 240_000 },
  async (t) => {
    const root = tempDir(t, "downcity-replay-");
    writeFileSync(join(root, "a.txt"), "const b = 2;\n");
    writeFileSync(join(root, "c.txt"), "const c = 2;\n");
    const replies: (ScriptedReply | (() => ScriptedReply))[] = [];
    let release!: () => void;
    const server = await startProviderServer(({ body }) => {
      if (isSummaryRequest(body)) return { sse: wire.openaiChat({ text: "SUMMARY of the early exchanges." }) };
      const next = replies.shift();
      if (!next) return wire.error("openai-chat", 400, "the test scripted no reply for this request");
      return typeof next === "function" ? next() : next;
    });
    t.after(() => server.close());
    const text = (s: string): ScriptedReply => ({ sse: wire.openaiChat({ text: s }) });
    const call = (id: string, name: string, args: Record<string, unknown>): ScriptedReply => ({
      sse: wire.openaiChat({ toolCalls: [{ id, name, arguments: args }] }),
    });
    const env = { REPLAY_CONTEXT_WINDOW: "4000" };

    let host = await HostProcess.start(root, server.baseURL, env);
    t.after(() => host.kill().catch(() => undefined));
    const live = new Map<string, Rendered>();
    const saved = new Map<string, ChatSnapshot>();
    const refs = new Map<string, SessionRef>();

    /** A new session, shown in a view that follows it; `run` drives it; the live rendering is kept. */
    const scenario = async (name: string, run: (ref: SessionRef, view: ViewModel) => Promise<void>) => {
      const snapshot = await host.request<ChatSnapshot>("newSession", {});
      const view = new ViewModel().show(snapshot).skip(host);
      refs.set(name, snapshot.ref);
      await run(snapshot.ref, view);
      live.set(name, view.follow(host).rendered());
      saved.set(name, view.saved());
      return view;
    };
    const prompt = (ref: SessionRef, text: string) => host.request("prompt", { ref, text });
    const turnEnded = (ref: SessionRef, n = 1) =>
      host.wait(
        () => host.agentEvents().filter((e) => for_(ref.sessionId)(e) && e.type === "turn-ended").length >= n,
        `turn ${n} of ${ref.sessionId} to end`,
      );
    const approval = (ref: SessionRef, n = 1) =>
      host.wait(
        () => host.agentEvents().filter((e) => for_(ref.sessionId)(e) && e.type === "approval-requested").length >= n,
        "an approval request",
      );
    const lastApproval = (ref: SessionRef) =>
      host
        .agentEvents()
        .filter((e) => for_(ref.sessionId)(e) && e.type === "approval-requested")
        .at(-1) as Extract<AgentEvent, { type: "approval-requested" }>;

    await scenario("plain answer", async (ref) => {
      replies.push(text("Hello there. **Bold** and `code`."));
      await prompt(ref, "hi");
      await turnEnded(ref);
    });
    await scenario("edit accepted", async (ref) => {
      replies.push(
        call("call_e1", "edit_file", { path: "a.txt", edits: [{ oldText: "const b = 2;", newText: "const b = 3;" }] }),
        text("Changed b."),
      );
      await prompt(ref, "set b to 3");
      await approval(ref);
      await host.request("approve", {
        ref,
        toolCallId: lastApproval(ref).toolCallId,
        decision: { approved: true, scope: "once" },
      });
      await turnEnded(ref);
    });
    await scenario("edit rejected with reason", async (ref) => {
      replies.push(
        call("call_e2", "edit_file", { path: "c.txt", edits: [{ oldText: "const c = 2;", newText: "const c = 9;" }] }),
        text("Understood, not changing it."),
      );
      await prompt(ref, "set c to 9");
      await approval(ref);
      await host.request("approve", {
        ref,
        toolCallId: lastApproval(ref).toolCallId,
        decision: { approved: false, reason: "use 4 instead" },
      });
      await turnEnded(ref);
    });
    await scenario("command run", async (ref) => {
      replies.push(call("call_c1", "run_command", { command: "echo out; exit 3" }), text("It exited with 3."));
      await prompt(ref, "run it");
      await approval(ref);
      await host.request("approve", { ref, toolCallId: lastApproval(ref).toolCallId, decision: { approved: true } });
      await turnEnded(ref);
    });
    await scenario("command stopped", async (ref) => {
      replies.push(call("call_c2", "run_command", { command: "echo started; sleep 30" }));
      await prompt(ref, "run the slow one");
      await approval(ref);
      await host.request("approve", { ref, toolCallId: lastApproval(ref).toolCallId, decision: { approved: true } });
      await host.untilAgent(
        (e) => for_(ref.sessionId)(e) && e.type === "tool-output" && e.update.text.includes("started"),
        "the command's first output",
      );
      await host.request("cancel", { ref });
      await turnEnded(ref);
    });
    await scenario("provider error then Retry", async (ref, view) => {
      for (let i = 0; i < 3; i++) replies.push(wire.error("openai-chat", 503, "upstream unavailable"));
      await prompt(ref, "are you there?");
      await turnEnded(ref);
      view.follow(host);
      const failed = view.conversation.items.find((i): i is ProblemItem => i.kind === "problem")!;
      assert.equal(failed.state, "failed");
      assert.equal(failed.retry, "offered");
      assert.match(
        failed.text,
        new RegExp(`127\\.0\\.0\\.1:${new URL(server.baseURL).port}`),
        "the error names the server",
      );
      assert.equal(failed.setting, "downcity.providers");
      assert.equal(failed.attempts, 3, "three attempts, one line");
      replies.push(text("Back again."));
      await host.request("retry", { ref, turnEnd: failed.turnEnd });
      await turnEnded(ref, 2);
    });
    await scenario("compaction", async (ref) => {
      for (let i = 0; i < 3; i++) {
        replies.push(text(`answer ${i} ${"x".repeat(2500)}`));
        await prompt(ref, `question ${i}`);
        await turnEnded(ref, i + 1);
      }
      const result = (await host.compact(ref)) as { closed: number };
      assert.ok(result.closed > 0, "a prefix was closed");
      await host.untilAgent(
        (e) => for_(ref.sessionId)(e) && e.type === "compaction-finished",
        "the compaction to finish",
      );
    });
    await scenario("steering", async (ref, view) => {
      const held = new Promise<void>((resolve) => (release = resolve));
      replies.push(
        {
          sse: wire.openaiChat({ text: "Working on the first question, slowly." }),
          pauseAt: { frame: 3, until: held },
        },
        text("And the steer is answered."),
      );
      await prompt(ref, "first question");
      // Everything before the provider's pause has been streamed (the draft is throttled).
      await host.untilAgent(
        (e) => for_(ref.sessionId)(e) && e.type === "draft" && JSON.stringify(e.blocks).includes("Working "),
        "the answer to stream",
      );
      await prompt(ref, "also check the tests");
      await host.untilAgent(
        (e) => for_(ref.sessionId)(e) && e.type === "session-event" && e.event.type === "user/queued",
        "the steer to be queued",
      );
      const items = view.follow(host).conversation.items;
      assert.equal(items.filter((i) => i.kind === "user" && i.queued).length, 1, "the steer shows at once, queued");
      const last = items.at(-1);
      assert.ok(last?.kind === "user" && last.queued, "below the answer still streaming");
      assert.ok(items.at(-2)?.kind === "assistant" && (items.at(-2) as { streaming: boolean }).streaming);
      // Reopened while it waits (switch away and back mid-run): the same, queued row and draft included.
      const now = view.rendered();
      await host.request("switchSession", { ref: refs.get("plain answer")! });
      const back = new ViewModel().show(await host.request<ChatSnapshot>("switchSession", { ref }));
      assert.deepEqual(back.rendered(), now, "steering: reopened while the steer is queued");
      release();
      await turnEnded(ref);
    });

    // The crash: a stream the provider stalls, the host SIGKILLed while it is shown.
    const crashView = await scenario("crash mid-stream", async (ref) => {
      replies.push({
        sse: wire.openaiChat({ text: "Partial answer the crash cuts off", chunkSize: 6 }),
        stallAfter: 5,
      });
      await prompt(ref, "explain");
      await host.wait(
        () =>
          host
            .agentEvents()
            .some((e) => for_(ref.sessionId)(e) && e.type === "draft" && JSON.stringify(e.blocks).includes("crash")),
        "the draft",
      );
      // The draft on disk is what the crash leaves behind (the view is told just before each write).
      await fileMatchesUnder(root, sessionPaths(root, ref.agentId, ref.sessionId).draft, /crash/);
    });
    assert.equal(crashView.conversation.items.at(-1)?.kind, "assistant");

    const names = [...refs.keys()];
    const crash = "crash mid-stream";
    /**
     * The crash scenario compares without the marker: live the answer is a streaming draft;
     * recovered it is an interrupted message, which also has its seq and model label.
     */
    const comparable = (name: string, r: Rendered): Rendered =>
      name !== crash
        ? r
        : {
            ...r,
            items: r.items.map((i) =>
              i.kind === "assistant"
                ? (({ streaming: _s, interrupted: _i, seq: _q, model: _m, ...rest }) => rest)(i)
                : i,
            ) as RenderedItem[],
          };
    const pagedBack = async (h: HostProcess, view: ViewModel) => {
      while (view.conversation.hasOlder)
        view.conversation.prepend(
          await h.request("loadEarlier", { ref: view.snapshot!.ref, beforeSeq: view.conversation.firstSeq }),
        );
      return view;
    };

    // 1. Switch away and back (the same host).
    for (const name of names.filter((n) => n !== crash)) {
      const other = refs.get(name === "plain answer" ? "edit accepted" : "plain answer")!;
      await host.request("switchSession", { ref: other });
      const back = new ViewModel()
        .show(await host.request<ChatSnapshot>("switchSession", { ref: refs.get(name)! }))
        .skip(host);
      assert.deepEqual((await pagedBack(host, back)).rendered(), live.get(name), `${name}: after a switch`);
    }

    // 2. SIGKILL of the extension host; the folder reopens in a new one.
    await host.kill();
    host = await HostProcess.start(root, server.baseURL, env);
    for (const name of names) {
      const hello = await host.request<{ snapshot?: ChatSnapshot }>("hello", { restore: refs.get(name)! });
      const reopened = await pagedBack(host, new ViewModel().show(hello.snapshot!).skip(host));
      assert.deepEqual(
        comparable(name, reopened.rendered()),
        comparable(name, live.get(name)!),
        `${name}: after SIGKILL`,
      );
      if (name === crash) {
        const answer = reopened.conversation.items.at(-1);
        assert.ok(answer?.kind === "assistant" && answer.interrupted, "the cut-off answer is recovered as interrupted");
      }
    }

    // 3. A window reload: the host shuts down and starts again; each webview paints its saved state, then catches up.
    await host.close();
    host = await HostProcess.start(root, server.baseURL, env);
    for (const name of names) {
      const reloaded = await pagedBack(host, await reloadedView(host, saved.get(name)!));
      assert.deepEqual(
        comparable(name, reloaded.rendered()),
        comparable(name, live.get(name)!),
        `${name}: after a reload`,
      );
    }

    // What the scenarios must show at all (the equalities above are about sameness).
    const tools = (name: string) =>
      live.get(name)!.items.flatMap((i) => (i.blocks ?? []).flatMap((b) => (b.type === "tool-call" ? [b.tool] : [])));
    assert.equal(tools("edit accepted")[0]!.status, "done");
    assert.match(tools("edit accepted")[0]!.edit!.diff, /\+const b = 3;/);
    assert.equal(tools("edit rejected with reason")[0]!.status, "refused");
    assert.equal(tools("edit rejected with reason")[0]!.decision, "denied: use 4 instead");
    assert.match(
      tools("edit rejected with reason")[0]!.edit!.diff,
      /\+const c = 9;/,
      "a rejected edit still shows what it proposed",
    );
    assert.equal(tools("command run")[0]!.status, "failed");
    assert.equal(tools("command run")[0]!.exit, "exit code 3");
    assert.equal(tools("command stopped")[0]!.status, "cancelled");
    const retried = live.get("provider error then Retry")!.items;
    assert.deepEqual(
      retried.map((i) => i.kind),
      ["user", "problem", "assistant"],
      "one user message, one error line, the retried answer",
    );
    assert.equal((retried[1] as ProblemItem).retry, "retried");
    assert.ok(
      live.get("compaction")!.items.some((i) => i.kind === "compaction"),
      "the compaction notice",
    );
    assert.ok(
      live.get("compaction")!.items.some((i) => i.kind === "summary"),
      "the summary at the boundary",
    );
    const steered = live.get("steering")!.items;
    assert.deepEqual(
      steered.map((i) => [i.kind, i.kind === "user" ? (i.origin ?? "human") : ""]),
      [
        ["user", "human"],
        ["assistant", ""],
        ["user", "steer"],
        ["assistant", ""],
      ],
      "the steer moved to where it was delivered",
    );
  },
);
