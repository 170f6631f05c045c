import assert from "node:assert/strict";
import { test } from "node:test";
import { DENY_REASON_MAX } from "../../core/protocol";
import { ev, helloWith, REF, skipReason, snapshot, useChat, userEv, violations } from "../support/webview/harness";
import { decided, pendingEdit } from "../support/webview/approvals";

const open = useChat();

const call = ev(2, "assistant/message", {
  content: [{ type: "tool-call", id: "call-1", name: "edit_file", arguments: { path: "src/a.ts" } }],
});
const pendingSession = () =>
  snapshot([userEv(1, "Change b to 3"), call], { running: true, pendingApprovals: [pendingEdit("call-1")] });

const focusedLabel = (page: import("playwright-core").Page) =>
  page.evaluate(
    () => document.activeElement?.getAttribute("aria-label") ?? document.activeElement?.textContent?.trim(),
  );

test(
  "Deny with feedback… opens a reason field: Escape closes it (the run goes on), Enter denies with the reason, the card says it",
  { skip: skipReason },
  async (t) => {
    const chat = await open(t, (host) => helloWith(pendingSession())(host).on("approve", () => ({ resolved: true })));
    const { page, host } = chat;
    const card = page.getByRole("group", { name: /Tool edit_file/ });
    const feedback = card.getByRole("button", { name: "Deny with feedback…", exact: true });
    const field = card.getByRole("textbox", { name: "Reason for denying", exact: true });
    await feedback.click();
    await field.waitFor();
    assert.equal(await focusedLabel(page), "Reason for denying", "the field takes the focus");
    assert.equal(await field.getAttribute("maxlength"), String(DENY_REASON_MAX));
    // Escape leaves the field only: nothing is denied, and the chat's Escape (Stop) does not fire.
    await field.fill("never mind");
    await field.press("Escape");
    await field.waitFor({ state: "detached" });
    assert.equal(await focusedLabel(page), "Deny with feedback…", "the focus goes back to the button");
    assert.equal(host.count("cancel"), 0);
    assert.equal(host.count("approve"), 0);

    await feedback.click();
    const reason = "Keep b at 2: <b>tests</b> pin it";
    await field.fill(reason);
    await field.press("Enter");
    await host.waitFor("approve");
    assert.deepEqual(host.sent.find((s) => s.method === "approve")!.params, {
      ref: REF,
      toolCallId: "call-1",
      decision: { approved: false, reason },
    });
    await card.getByRole("status").filter({ hasText: "Sending your answer" }).waitFor();
    assert.equal(await field.isDisabled(), true, "one answer per card");

    await decided(host, "call-1", 3, { decision: "denied", reason });
    const decision = page.getByRole("group", { name: "Tool edit_file: refused" }).locator(".tool-decision");
    await decision.filter({ hasText: `denied: ${reason}` }).waitFor();
    assert.equal(await decision.locator("b").count(), 0, "the reason is text, not markup");
    assert.equal(await field.count(), 0);
    assert.deepEqual(await violations(page), []);
  },
);

test("the send button denies with the typed reason; an empty one denies without", { skip: skipReason }, async (t) => {
  const { page, host } = await open(t, (host) =>
    helloWith(pendingSession())(host).on("approve", () => ({ resolved: false })),
  );
  const card = page.getByRole("group", { name: /Tool edit_file/ });
  await card.getByRole("button", { name: "Deny with feedback…", exact: true }).click();
  const field = card.getByRole("textbox", { name: "Reason for denying", exact: true });
  await field.fill("   ");
  await card.getByRole("button", { name: "Deny with this reason", exact: true }).click();
  await host.waitFor("approve");
  // Nothing waited for it (resolved: false): the card stays answerable, the field with it.
  await card.getByText("Nothing waits for this answer any more").waitFor();
  await field.fill("  two  words  ");
  await field.press("Enter");
  await host.waitFor("approve", 2);
  assert.deepEqual(
    host.sent.filter((s) => s.method === "approve").map((s) => s.params.decision),
    [{ approved: false }, { approved: false, reason: "two words" }],
  );
});

test(
  "a reopened card shows the logged reason cleaned: one line, capped, markup as text",
  { skip: skipReason },
  async (t) => {
    // Hand-written into the log (everything under .downcity/ is untrusted).
    const hostile = `<img src=x onerror="window.__pwned=1">\nsecond line ${"w".repeat(2 * DENY_REASON_MAX)}`;
    const replayed = snapshot([
      userEv(1, "Change b to 3"),
      call,
      ev(3, "tool/approval", { toolCallId: "call-1", decision: "denied", by: "user", reason: hostile }),
      ev(4, "tool/result", {
        toolCallId: "call-1",
        toolName: "edit_file",
        content: [{ type: "text", text: "Nothing ran: the user denied this edit (edit_file)." }],
        outcome: "refused",
      }),
    ]);
    const { page } = await open(t, helloWith(replayed));
    const decision = page.getByRole("group", { name: "Tool edit_file: refused" }).locator(".tool-decision");
    await decision.waitFor();
    const text = (await decision.textContent())!;
    assert.ok(text.startsWith('denied: <img src=x onerror="window.__pwned=1"> second line www'), text);
    assert.equal(Array.from(text).length, "denied: ".length + DENY_REASON_MAX);
    assert.ok(text.endsWith("w…"));
    assert.equal(await page.locator("img[src=x]").count(), 0);
    assert.equal(await page.evaluate(() => (window as any).__pwned), undefined);
  },
);
