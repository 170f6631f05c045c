import assert from "node:assert/strict";
import { test } from "node:test";
import { wire } from "../support/provider-server";
import { startHarness } from "./harness";

test("a running turn shows in the list and the change feed, then clears", async (t) => {
  let duringTurn: boolean | undefined;
  const h = await startHarness(t, async () => {
    duringTurn = (await h.sessions.list()).find((s) => s.sessionId === "session-test")?.running;
    return { sse: wire.openaiChat({ text: "ok" }) };
  });
  const feed: (boolean | undefined)[] = [];
  h.sessions.onChange((change) => change.item && feed.push(change.item.running));
  h.agent.followUp("hi");
  await h.agent.run();
  assert.equal(duringTurn, true);
  assert.equal(feed[0], true, "the first change says running");
  assert.equal(feed.at(-1), undefined, "the last change says idle");
  const [item] = await h.sessions.list();
  assert.equal(item!.running, undefined);
  assert.equal(item!.hot, true);
});
