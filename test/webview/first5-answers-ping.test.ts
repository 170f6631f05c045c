// Issue 19 (first5, round 7): the host's hello watchdog asks a silent chat document whether it runs before it
// replaces it (extension/chat/hello-watchdog.ts); the real bundle answers every `ping` with `alive`.
import { test } from "node:test";
import { helloWith, skipReason, snapshot, useChat, userEv } from "../support/webview/harness";

const open = useChat();

test("a running chat answers the host's ping with alive, each time it is asked", { skip: skipReason }, async (t) => {
  const { page, host } = await open(t, (host) =>
    helloWith(snapshot([userEv(1, "Hello")]))(host).on("alive", () => ({})),
  );
  await page.getByRole("textbox", { name: "Message", exact: true }).waitFor();
  await host.event({ type: "ping" });
  await host.waitFor("alive");
  await host.event({ type: "ping" });
  await host.waitFor("alive", 2);
});
