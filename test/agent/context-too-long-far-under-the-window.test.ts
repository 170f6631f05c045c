import assert from "node:assert/strict";
import { before, test } from "node:test";
import { wire } from "../support/provider-server";
import { startHarness } from "./harness";
import { buildCli, cliEnv, runCli } from "../support/cli";
import { startProviderServer } from "../support/provider-server";
import { tempWorkspace } from "./harness";

/**
 * Issue 19 item 8: a provider reporting context_length_exceeded for a request far under
 * the configured window (a one-line prompt, a 200,000-token window) is not a compaction
 * problem: the loop retries once with the output reservation lowered, and if that fails
 * too the error gives the measured size and the window and names the setting.
 */
const TOO_LONG = () =>
  wire.error(
    "openai-chat",
    400,
    "This model's maximum context length is 4096 tokens.",
    undefined,
    "context_length_exceeded",
  );
const reserved = (body: any): number | undefined => body.max_completion_tokens ?? body.max_tokens;

before(buildCli);

test("a too-long answer for a one-line prompt retries once with less output reserved, and that answer is the turn's", async (t) => {
  const h = await startHarness(
    t,
    ({ body }) => (reserved(body) === undefined ? TOO_LONG() : { sse: wire.openaiChat({ text: "Fits now." }) }),
    { agent: { contextWindow: 200_000 } },
  );
  h.agent.followUp("hi");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "completed");
  const bodies = h.bodies();
  assert.equal(bodies.length, 2, "one retry");
  assert.equal(reserved(bodies[0]), undefined);
  assert.equal(reserved(bodies[1]), 1024, "the retry reserves less output");
  const types = h.agent.session.events().map((e) => e.type);
  assert.ok(!types.includes("compaction/start"), "nothing is compacted: the request was far under the window");
  const error = h.agent.session.events().find((e) => e.type === "request/error")!.data as {
    kind: string;
    retryInMs: number;
    server: string;
  };
  assert.equal(error.kind, "context-length");
  assert.equal(error.retryInMs, 0);
  assert.equal(error.server, `127.0.0.1:${new URL(h.server.baseURL).port}`);
});

test("when the lowered reservation fails too, the error gives the measured size, the window and the setting (not 'nothing is left to compact')", async (t) => {
  const h = await startHarness(t, TOO_LONG, { agent: { contextWindow: 200_000 } });
  h.agent.followUp("hi");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "error");
  const message = outcome!.error!.message;
  assert.doesNotMatch(message, /nothing is left to compact/);
  assert.match(message, /about [\d,]+ tokens \([\d,]+ characters\)/, "the measured request size");
  assert.match(message, /configured context window is 200,000 tokens/);
  assert.match(message, /provider profile "test"/, "the place to set the window");
  assert.match(message, /maximum context length is 4096/, "the server's own words");
  assert.equal(h.bodies().length, 2, "one retry, then stop");
  const end = h.agent.session.events().findLast((e) => e.type === "turn/end")!.data as {
    reason: string;
    errorKind: string;
    setting: string;
  };
  assert.equal(end.reason, "error");
  assert.equal(end.errorKind, "context-length");
});

test("the CLI names the window and the variables to fix", async (t) => {
  const root = tempWorkspace(t);
  const server = await startProviderServer(TOO_LONG);
  t.after(() => server.close());
  const run = await runCli(["run", "--cwd", root, "hi"], cliEnv(server.baseURL, { DOWNCITY_CONTEXT_WINDOW: "200000" }));
  assert.equal(run.code, 1);
  assert.doesNotMatch(run.stderr, /nothing is left to compact/);
  assert.match(run.stderr, /configured context window is 200,000 tokens/);
  assert.match(run.stderr, /DOWNCITY_CONTEXT_WINDOW/);
  assert.doesNotMatch(run.stderr, /DOWNCITY_BASE_URL/, "the window is the one thing to fix");
  assert.equal(server.requests.length, 2);
});

// Each error names the one place to fix it: "context too long" the window's, a refused connection the server's
// (an environment profile's 503 used to name DOWNCITY_CONTEXT_WINDOW too).
const WHERE = {
  providerSetting: (_id: string, about: "server" | "window") => (about === "window" ? "WINDOW_VAR" : "SERVER_VAR"),
};

test("a context-too-long error names where the window is set, not where the server is", async (t) => {
  const h = await startHarness(t, TOO_LONG, { agent: { contextWindow: 200_000 }, runtime: WHERE });
  h.agent.followUp("hi");
  const [outcome] = await h.agent.run();
  assert.match(outcome!.error!.message, /Set the model's real context window in WINDOW_VAR\./);
  assert.doesNotMatch(outcome!.error!.message, /SERVER_VAR/);
  const settings = h.agent.session
    .events()
    .filter((e) => e.type === "request/error" || e.type === "turn/end")
    .map((e) => (e.data as { setting?: string }).setting);
  assert.deepEqual(settings, ["WINDOW_VAR", "WINDOW_VAR", "WINDOW_VAR"]);
});

test("a server error names where the server is set, not where the window is", async (t) => {
  const h = await startHarness(t, () => wire.error("openai-chat", 503, "overloaded"), { runtime: WHERE });
  h.agent.followUp("hi");
  const [outcome] = await h.agent.run();
  assert.equal(outcome!.reason, "error");
  const end = h.agent.session.events().findLast((e) => e.type === "turn/end")!.data as {
    setting: string;
    error: string;
  };
  assert.equal(end.setting, "SERVER_VAR");
  assert.match(end.error, /\(server 127\.0\.0\.1:\d+; check SERVER_VAR\)/);
  assert.doesNotMatch(JSON.stringify(h.agent.session.events()), /WINDOW_VAR/);
});
