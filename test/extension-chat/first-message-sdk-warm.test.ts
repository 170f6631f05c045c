import assert from "node:assert/strict";
import { test } from "node:test";
import { loadedSdks } from "../../core/llm/adapters/sdks";
import { startHarness } from "../agent/harness";
import { wire } from "../support/provider-server";
import { ChatController, recordingActions, runtimesOf, view } from "./helpers";

/**
 * Issue 19, first message → first token (BENCHMARKS.md, section first5): the provider SDK
 * loads on first use (start-up stays light), which cost the first message about 0.3 s
 * between `request/header` and the request leaving. A chat that said hello warms it up in
 * the background, after its reply, so the first message finds it loaded.
 */
test("after the chat's hello the selected model's SDK is loaded before any message", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Done." }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  assert.equal(loadedSdks().openai, undefined, "nothing loaded the SDK yet (own process)");
  const chat = view(controller, recordingActions());
  await chat.request("hello", {});
  assert.equal(controller.warming, undefined, "not while the hello is answered");
  t.mock.timers.tick(0);
  await controller.warming;
  assert.ok(loadedSdks().openai, "loaded after the reply");
  assert.equal(loadedSdks().anthropic, undefined, "only the selected provider's SDK");
  assert.equal(h.server.requests.length, 0, "warming sends nothing to the provider");
});
