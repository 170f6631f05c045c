import assert from "node:assert/strict";
import { test } from "node:test";
import { SESSION_GONE } from "../../../extension/chat/errors";
import { startHarness } from "../../agent/harness";
import { wire } from "../../support/provider-server";
import { ChatController, FOLDER, recordingActions, runtimesOf, view } from "./helpers";

/**
 * Issue 20 item 2: a deleted session stayed on screen and "Load earlier" then printed a
 * raw `no session "session-…"`. Every view of a session follows its delete, archive and
 * rename at once; here two views (the sidebar and an editor chat) over the real store's
 * change feed, as the extension wires it through the Sessions tree.
 */
test("delete, archive, unarchive and rename reach every view of the session at once; errors name no id", async (t) => {
  const h = await startHarness(t, () => ({ sse: wire.openaiChat({ text: "Done." }) }));
  const controller = new ChatController(runtimesOf(h.runtime));
  t.after(() => controller.dispose());
  const off = h.runtime.onChange((change) => controller.sessionChanged(FOLDER, change));
  t.after(off);
  const ref = { folderKey: FOLDER, agentId: "code", sessionId: h.agent.session.id };
  await h.runtime.prompt(ref, "First question");
  const views = [view(controller, recordingActions()), view(controller, recordingActions())];
  const titles: (string | undefined)[][] = [[], []];
  views.forEach((v, i) => (v.server.onTitle = (title) => titles[i]!.push(title)));
  for (const v of views) {
    await v.request("hello", {});
    await v.request("switchSession", { ref });
  }
  const other = view(controller, recordingActions());
  await other.request("hello", {});
  await other.request("newSession", { agentId: "code" });

  // Rename: the editor tab's title follows (the header follows the logged title event).
  await h.runtime.rename(ref, "Renamed plan");
  for (const list of titles) assert.equal(list.at(-1), "Renamed plan");

  // Archive: each view reopens it read-only with the archive's reason.
  await h.runtime.archive(ref);
  for (const v of views) {
    await v.untilHostEvent((e) => e.type === "session-switched" && /archived/.test(e.snapshot.readOnly ?? ""));
  }
  // Unarchive: writable again.
  await h.runtime.unarchive(ref);
  for (const v of views) {
    await v.untilHostEvent((e) => e.type === "session-switched" && e.snapshot.readOnly === undefined);
  }

  // Delete: both views close it and say so; the view of another session is not told.
  await h.runtime.delete(ref);
  for (const v of views) {
    await v.untilHostEvent((e) => e.type === "session-closed");
    const closed = v.hostEvents().find((e) => e.type === "session-closed")!;
    assert.deepEqual(closed, { type: "session-closed", ref, message: SESSION_GONE });
    assert.equal(v.server.ref, undefined, "the view no longer follows it");
  }
  assert.equal(other.hostEvents().filter((e) => e.type === "session-closed").length, 0);
  // A late Load earlier (a view that missed the event) says what happened, with no id.
  await assert.rejects(views[0]!.request("loadEarlier", { ref, beforeSeq: 1 }), (error: Error & { code?: string }) => {
    assert.equal(error.code, "not-found");
    assert.equal(error.message, SESSION_GONE);
    assert.doesNotMatch(error.message, /session-/);
    return true;
  });
  await assert.rejects(views[1]!.request("switchSession", { ref }), (error: Error) => error.message === SESSION_GONE);
});
