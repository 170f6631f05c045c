import assert from "node:assert/strict";
import { test } from "node:test";
import { startHarness } from "../../agent/harness";
import { wire } from "../../support/provider-server";
import { ChatController, FOLDER, recordingActions, runtimesOf, view } from "./helpers";

/**
 * Issue 19 item 5: Open Chat in Editor moves the conversation. The sidebar's server stops
 * following it and tells its webview (a placeholder), a reload keeps the placeholder, and
 * showing any session again (a tree click, Bring Chat Back) ends it.
 */
test("a moved conversation: the sidebar stops following it, keeps the placeholder across a reload, and Bring Chat Back asks the host", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Done." }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const ref = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  await h.runtime.prompt(ref, "Plan the restock rule");
  const sidebar = view(controller, recordingActions());
  await sidebar.request("hello", {});
  await sidebar.request("switchSession", { ref });

  const moved = sidebar.server.moveAway();
  assert.deepEqual(moved, { ref, title: "Plan the restock rule" });
  assert.equal(sidebar.server.ref, undefined, "the sidebar no longer follows the session");
  assert.deepEqual(sidebar.hostEvents().at(-1), { type: "session-moved", moved });
  // A run in the moved session is not forwarded to the sidebar any more.
  const before = sidebar.agentEvents().length;
  await h.runtime.prompt(ref, "And again");
  assert.equal(sidebar.agentEvents().length, before, "no agent events after the move");

  // A reloading sidebar (no saved state: the webview dropped it) gets the placeholder back.
  assert.deepEqual(await sidebar.request("hello", {}), { config: await controller.config(), moved });

  const asked: unknown[] = [];
  sidebar.server.onBringBack = async (r) => void asked.push(r);
  await sidebar.request("bringBack", { ref });
  assert.deepEqual(asked, [ref]);

  // Showing a session (what Bring Chat Back ends with) clears the placeholder.
  await sidebar.server.show(ref);
  assert.equal(sidebar.server.moved, undefined);
  const hello = await sidebar.request("hello", {});
  assert.equal(hello.moved, undefined);
  assert.deepEqual(hello.snapshot.ref, ref);
});

test("nothing shown, nothing moved; a malformed Bring Chat Back is refused", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Done." }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const sidebar = view(controller, recordingActions());
  await sidebar.request("hello", {});
  assert.equal(sidebar.server.moveAway(), undefined);
  assert.equal(sidebar.hostEvents().filter((e) => e.type === "session-moved").length, 0);
  await assert.rejects(
    sidebar.request("bringBack", { ref: { folderKey: FOLDER } }),
    (e: Error & { code?: string }) => e.code === "invalid",
  );
});
