import assert from "node:assert/strict";
import { test } from "node:test";
import { loadedSdks } from "../../../core/llm/adapters/sdks";
import { startHarness } from "../../agent/harness";
import { wire } from "../../support/provider-server";
import { ChatController, recordingActions, runtimesOf, view } from "./helpers";

/**
 * Issue 19, first message → first token (BENCHMARKS.md, section first5): the provider SDK
 * loads on first use (start-up stays light), which cost the first message about 0.3 s
 * between `request/header` and the request leaving. The chat asks the host to warm it up on
 * the user's first keystroke (`warm`), so the message finds it loaded.
 */
test("warm loads the selected model's SDK before any message, and sends nothing", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Done." }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const chat = view(controller, recordingActions());
  await chat.request("hello", {});
  assert.equal(loadedSdks().openai, undefined, "the hello alone loads nothing (own process)");
  assert.deepEqual(await chat.request("warm", {}), {});
  await controller.warming;
  assert.ok(loadedSdks().openai, "loaded once the user started typing");
  assert.equal(loadedSdks().anthropic, undefined, "only the selected provider's SDK");
  assert.equal(h.server.requests.length, 0, "warming sends nothing to the provider");
});
