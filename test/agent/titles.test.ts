import assert from "node:assert/strict";
import { test } from "node:test";
import { fallbackTitle } from "../../core/agent/titles";
import { wire } from "../support/provider-server";
import { startHarness } from "./harness";

test("the fallback title is the first sentence of the first user message, on one line", () => {
  assert.equal(
    fallbackTitle([{ type: "text", text: "Fix the failing login test. It broke after the upgrade." }]),
    "Fix the failing login test.",
  );
  assert.equal(fallbackTitle([{ type: "text", text: "  refactor\n\nthe parser please" }]), "refactor");
  assert.equal(fallbackTitle([{ type: "image", mediaType: "image/png", data: "" }]), undefined);
  assert.ok(fallbackTitle([{ type: "text", text: "word ".repeat(100) }])!.length <= 60);
});

test("a model-written title follows the fallback at once; a user rename pins the title", async (t) => {
  const h = await startHarness(
    t,
    ({ body }) => {
      const system = JSON.stringify(body.messages[0]);
      if (system.includes("Write a short title")) return { sse: wire.openaiChat({ text: '"Login test repair."' }) };
      return { sse: wire.openaiChat({ text: "done" }) };
    },
    { agent: { titles: "llm" } },
  );
  const titles: [string, string][] = [];
  h.agent.session.on(
    "event",
    (e) => e.type === "session/title" && titles.push([(e.data as any).title, (e.data as any).source.kind]),
  );
  h.agent.followUp("Fix the failing login test. It broke after the upgrade.");
  await h.agent.run();
  assert.deepEqual(titles, [
    ["Fix the failing login test.", "fallback"],
    ["Login test repair", "llm"],
  ]);
  await h.sessions.rename({ sessionId: h.agent.session.id }, "My title");
  assert.deepEqual([h.agent.session.title.title, h.agent.session.title.pinned], ["My title", true]);
  h.agent.followUp("more");
  await h.agent.run();
  assert.equal(h.agent.session.title.title, "My title", "automatic titles stop after a rename");
});
