// Issue 19 (first5, round 3): the sidebar's "Chat moved to an editor" placeholder was lost on
// a window reload (the editor tab came back on its own, the sidebar did not), and it kept the
// old title after a rename. The host keeps it in the workspace's state, as it keeps the shown
// session, and follows the store's change feed for its title.
import assert from "node:assert/strict";
import { test } from "node:test";
import { MOVED_SESSION_KEY, workspaceShownMemory } from "../../../extension/chat/shown-memory";
import { startHarness } from "../../agent/harness";
import { MemoryMemento } from "../../support/extension/helpers";
import { wire } from "../../support/provider-server";
import { ChatController, FOLDER, recordingActions, runtimesOf, view } from "./helpers";

test("a moved conversation's placeholder survives a window reload, follows a rename, and ends when the session shows again", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Done." }) }));
  const state = new MemoryMemento();
  const ref = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  await h.runtime.prompt(ref, "Plan the restock rule");

  const before = new ChatController(runtimesOf(h.runtime));
  const sidebar = view(before, recordingActions(), () => true, workspaceShownMemory(state));
  await sidebar.request("hello", {});
  await sidebar.request("switchSession", { ref });
  const moved = sidebar.server.moveAway();
  assert.deepEqual(moved, { ref, title: "Plan the restock rule" });
  sidebar.server.dispose();
  before.dispose();

  // The reload: a new host over the same workspace state; the webview saved nothing (the placeholder clears it).
  const after = new ChatController(runtimesOf(h.runtime));
  t.after(() => after.dispose());
  const off = h.runtime.onChange((change) => after.sessionChanged(FOLDER, change));
  t.after(off);
  const reloaded = view(after, recordingActions(), () => true, workspaceShownMemory(state));
  const hello = await reloaded.request("hello", {});
  assert.deepEqual(hello.moved, moved, "the placeholder again, not the conversation");
  assert.equal(hello.snapshot, undefined);

  // A rename from anywhere (here the store, as the tree's Rename does): the placeholder names the new title.
  await h.runtime.rename(ref, "Restock rule, take two");
  const renamed = { ref, title: "Restock rule, take two" };
  await reloaded.untilHostEvent((e) => e.type === "session-moved" && e.moved.title === renamed.title);
  assert.deepEqual(reloaded.server.moved, renamed);
  // And a second reload still names it.
  const again = view(after, recordingActions(), () => true, workspaceShownMemory(state));
  assert.deepEqual((await again.request("hello", {})).moved, renamed);
  again.server.dispose();
  // A rename of another session changes nothing.
  const other = { folderKey: FOLDER, agentId: "code", sessionId: h.runtime.create("code").id };
  await h.runtime.prompt(other, "Something else");
  await h.runtime.rename(other, "Not this one");
  assert.deepEqual(reloaded.server.moved, renamed);

  // Bring Chat Back ends with the session shown: the placeholder is forgotten, and a reload shows the conversation.
  await reloaded.server.show(ref);
  assert.equal(state.get(MOVED_SESSION_KEY), undefined);
  const last = view(after, recordingActions(), () => true, workspaceShownMemory(state));
  const shown = await last.request("hello", {});
  assert.equal(shown.moved, undefined);
  assert.deepEqual(shown.snapshot?.ref, ref);
});

test("a forged placeholder in the workspace state is read as untrusted: nothing moved, nothing broken", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Done." }) }));
  const state = new MemoryMemento();
  await state.update(MOVED_SESSION_KEY, { ref: { folderKey: FOLDER, agentId: "../../etc", sessionId: 7 } });
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const sidebar = view(controller, recordingActions(), () => true, workspaceShownMemory(state));
  const hello = await sidebar.request("hello", {});
  assert.equal(hello.moved, undefined);
});
