import assert from "node:assert/strict";
import { test } from "node:test";
import { CONFIG, conversation, REF, skipReason, snapshot, useChat } from "../support/webview/harness";

const open = useChat();

test(
  "config and model events update the pickers, the empty state and the meter's window without a reload",
  { skip: skipReason },
  async (t) => {
    const usage = {
      type: "usage" as const,
      sessionId: REF.sessionId,
      agentId: REF.agentId,
      usage: { inputTokens: 4000, outputTokens: 0 },
      contextWindow: 128_000,
      ratio: 4000 / 128_000,
    };
    const { page, host } = await open(t, (host) =>
      host.on("hello", () => ({
        config: { ...CONFIG, providerConfigured: false, models: [] },
        snapshot: snapshot(conversation(1, 2), { usage }),
      })),
    );
    const model = page.getByRole("combobox", { name: "Model" });
    const agent = page.getByRole("combobox", { name: "Agent" });
    const meter = page.getByRole("meter", { name: "Context used" });
    await page.getByRole("heading", { name: "Connect a model" }).waitFor();
    await page.evaluate(() => ((window as any).__sameDocument = true));
    assert.equal(await model.count(), 0, "no models, no model picker");
    assert.equal(await meter.getAttribute("aria-valuemax"), "128000");

    // A profile is configured: the empty state goes, the picker appears with the session's model.
    const m1 = { provider: "local", model: "m1", contextWindow: 8000 };
    await host.event({ type: "config", changes: { providerConfigured: true, models: [m1] } });
    await host.event({ type: "model", ref: REF, model: m1 });
    await page.getByRole("heading", { name: "Connect a model" }).waitFor({ state: "detached" });
    await model.waitFor();
    assert.deepEqual(await model.locator("option").allTextContents(), ["m1 (local)"]);
    assert.equal(
      await meter.getAttribute("aria-valuemax"),
      "8000",
      "the meter measures against the selected model's window",
    );
    assert.match((await meter.textContent()) ?? "", /50%/);

    // A new agent from settings; another model selected elsewhere.
    await host.event({ type: "config", changes: { agents: [...CONFIG.agents, { id: "review", name: "Review" }] } });
    await host.event({ type: "config", changes: { models: [m1, { provider: "local", model: "m2" }] } });
    await host.event({ type: "model", ref: REF, model: { provider: "local", model: "m2" } });
    await page.waitForFunction(() => document.querySelectorAll("select[aria-label=Agent] option").length === 3);
    assert.deepEqual(await agent.locator("option").allTextContents(), ["Code", "Ask", "Review"]);
    await page.waitForFunction(
      () =>
        (document.querySelector("select[aria-label=Model]") as HTMLSelectElement | null)?.selectedOptions[0]
          ?.textContent === "m2 (local)",
    );
    assert.equal(
      await meter.getAttribute("aria-valuemax"),
      "128000",
      "m2 names no window: the last request's is shown",
    );

    // Restricted Mode comes and goes with the trust.
    const box = page.getByRole("textbox", { name: "Message" });
    await host.event({ type: "config", changes: { restricted: "this workspace is not trusted" } });
    await page.getByText("Read-only: this workspace is not trusted").waitFor();
    assert.equal(await box.isDisabled(), true);
    await host.event({ type: "config", changes: { restricted: null } });
    await page.getByText("Read-only: this workspace is not trusted").waitFor({ state: "detached" });
    assert.equal(await box.isDisabled(), false);

    // The last profile removed: the empty state is back, the picker gone.
    await host.event({ type: "config", changes: { providerConfigured: false, models: [] } });
    await host.event({ type: "model", ref: REF });
    await page.getByRole("heading", { name: "Connect a model" }).waitFor();
    assert.equal(await model.count(), 0);

    // A malformed change is dropped and breaks nothing.
    await host.postRaw({ kind: "event", event: { type: "config", changes: { models: "all of them" } } });
    await host.event({ type: "config", changes: { providerConfigured: true } });
    await page.getByRole("heading", { name: "Connect a model" }).waitFor({ state: "detached" });

    assert.equal(await page.evaluate(() => (window as any).__sameDocument), true, "no reload");
    assert.equal(host.count("hello"), 1, "no new hello");
    assert.deepEqual(
      host.sent.filter((s) => (s.method as string) === "pageerror"),
      [],
    );
  },
);
