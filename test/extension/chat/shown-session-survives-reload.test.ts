// workbench-chat step 04 once showed "No session open" after a window reload under load:
// VS Code had not yet persisted the webview's saved state. The host keeps the sidebar's
// shown session in the workspace's state too, so a reload restores it either way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SHOWN_SESSION_KEY, workspaceShownMemory } from "../../../extension/chat/shown-memory";
import { startHarness } from "../../agent/harness";
import { MemoryMemento } from "../../support/extension/helpers";
import { wire } from "../../support/provider-server";
import { ChatController, FOLDER, recordingActions, runtimesOf, view } from "./helpers";

test("after a window reload whose webview saved nothing, the sidebar shows the session it showed; a deleted one is forgotten", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Noted." }) }));
  const state = new MemoryMemento();
  const first = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  const second = { folderKey: FOLDER, agentId: "code", sessionId: h.runtime.create("code").id };
  await h.runtime.prompt(second, "Keep this one open");

  // The window before the reload: the user switched to `second`, then the tree showed `first`, then back.
  const before = new ChatController(runtimesOf(h.runtime));
  const sidebar = view(before, recordingActions(), () => true, workspaceShownMemory(state));
  await sidebar.request("hello", {});
  await sidebar.request("switchSession", { ref: first });
  await sidebar.server.show(second);
  sidebar.server.dispose();
  before.dispose();

  // The reload: a new extension host (controller, server) over the same workspace state; the webview restores nothing.
  const after = new ChatController(runtimesOf(h.runtime));
  t.after(() => after.dispose());
  const reloaded = view(after, recordingActions(), () => true, workspaceShownMemory(state));
  const hello = await reloaded.request("hello", {});
  assert.deepEqual(hello.snapshot?.ref, second);
  // The webview's own saved session, when it has one, still wins (it is the view's latest word).
  const restored = view(after, recordingActions(), () => true, workspaceShownMemory(state));
  assert.deepEqual((await restored.request("hello", { restore: first })).snapshot?.ref, first);
  restored.server.dispose();

  // What is stored is read as untrusted: a forged value opens nothing and breaks nothing.
  const forged = new MemoryMemento();
  await forged.update(SHOWN_SESSION_KEY, { folderKey: FOLDER, agentId: "../../etc", sessionId: 42 });
  const wary = view(after, recordingActions(), () => true, workspaceShownMemory(forged));
  assert.equal((await wary.request("hello", {})).snapshot, undefined);
  wary.server.dispose();

  // Deleted while shown: the view closes it, and the next reload opens no session instead of an error.
  const off = h.runtime.onChange((change) => after.sessionChanged(FOLDER, change));
  t.after(off);
  await h.runtime.delete(second);
  await reloaded.untilHostEvent((e) => e.type === "session-closed");
  assert.equal(state.get(SHOWN_SESSION_KEY), undefined);
  reloaded.server.dispose();
  const again = view(after, recordingActions(), () => true, workspaceShownMemory(state));
  const last = await again.request("hello", {});
  assert.equal(last.snapshot, undefined);
  again.server.dispose();
});
