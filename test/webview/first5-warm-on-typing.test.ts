// Issue 19, first message → first token: the chat asks the host to warm the model's SDK on
// the first keystroke in the message box, once per document (the real bundle in Chromium).
import assert from "node:assert/strict";
import { test } from "node:test";
import { helloWith, skipReason, snapshot, useChat, userEv } from "../support/webview/harness";

const open = useChat();

test(
  "the first keystroke asks the host to warm up, once; the hello alone does not",
  { skip: skipReason },
  async (t) => {
    const { page, host } = await open(t, (host) =>
      helloWith(snapshot([userEv(1, "Hello")]))(host).on("warm", () => ({})),
    );
    const box = page.getByRole("textbox", { name: "Message", exact: true });
    await box.waitFor();
    assert.equal(host.count("warm"), 0, "not at hello: the view's first paint comes first");
    await box.pressSequentially("Which module");
    await host.waitFor("warm");
    await box.pressSequentially(" restocks items?");
    await host.waitFor("hello");
    assert.equal(host.count("warm"), 1, "once per document");
  },
);
