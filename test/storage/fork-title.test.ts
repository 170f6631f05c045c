import assert from "node:assert/strict";
import { test } from "node:test";
import type { SessionTitleData } from "../../core/protocol";
import { Sessions } from "../../core/storage";
import { tempDir } from "../support/temp";

// Issue 20 item 4: a fork showed its source's title (two identical rows in the tree), and a
// fork made at a user message before the source's title event had no title at all.
test('a fork is titled "Fork of ‹title›" by a user title event, even forked before the source\'s title event; renaming it still works', async (t) => {
  const root = tempDir(t);
  const store = new Sessions({ root });
  t.after(() => store.close());
  const source = store.create({ id: "src" });
  const ask = (text: string) =>
    source.append("user/message", { content: [{ type: "text", text }] }, { surface: "append" });
  const answer = (text: string) =>
    source.append("assistant/message", { content: [{ type: "text", text }] }, { surface: "append" });
  ask("How do I release?");
  answer("Tag it.");
  const second = ask("And then?");
  answer("Publish.");
  // The source's title arrives late (an LLM title after the first turns).
  source.append("session/title", { title: "Release steps", messageSeqs: [1], source: { kind: "llm" } });
  await store.flush(source);

  const whole = await store.fork({ sessionId: "src" }, { newId: "whole" });
  assert.equal(whole.title, "Fork of Release steps");
  const early = await store.fork({ sessionId: "src" }, { newId: "early", atSeq: second.seq - 1 });
  assert.equal(early.title, "Fork of Release steps", "titled though forked before the source's title event");

  // Cold: the title is a logged user title, so it survives reopening and automatic titles do not replace it.
  const other = new Sessions({ root });
  t.after(() => other.close());
  const { session } = await other.open({ sessionId: "early" });
  const titles = session.events().filter((e) => e.type === "session/title");
  assert.equal(titles.length, 1);
  assert.deepEqual((titles[0]!.data as SessionTitleData).source, { kind: "user" });
  assert.equal(session.title.pinned, true);
  session.append("session/title", { title: "An automatic title", messageSeqs: [1], source: { kind: "llm" } });
  assert.equal(session.title.title, "Fork of Release steps");
  await other.rename({ sessionId: "early" }, "My own name");
  assert.equal(session.title.title, "My own name");
  // The source is untouched.
  assert.equal((await other.list()).find((i) => i.sessionId === "src")!.title, "Release steps");

  // A source with no title at all: its first user message names the fork.
  const bare = store.create({ id: "bare" });
  bare.append("user/message", { content: [{ type: "text", text: "Fix the crash on save" }] }, { surface: "append" });
  await store.flush(bare);
  assert.equal(
    (await store.fork({ sessionId: "bare" }, { newId: "bare-fork" })).title,
    "Fork of Fix the crash on save",
  );
});
