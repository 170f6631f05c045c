// The connect form in Chromium under the extension's CSP: per-kind Base URLs, the Model
// list from the server (else free text), the key sent once and kept nowhere, failures
// named at their field, and the form opened later by the host (Add a model…).
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CONFIG, conversation, OUT, skipReason, snapshot, useChat, violations } from "../support/webview/harness";

const open = useChat();
const KEY = "sk-form-0d4c2b9e71";
const SHOTS = join(OUT, "connect-form");
const NONE = { ...CONFIG, providerConfigured: false, models: [] };

test(
  "no provider: the form lists the server's models, sends the key once, names a failure at its field, and goes once connected",
  { skip: skipReason },
  async (t) => {
    mkdirSync(SHOTS, { recursive: true });
    const chat = await open(t, (host) =>
      host
        .on("hello", () => ({ config: NONE }))
        .on("listModels", ({ baseURL }) =>
          baseURL.includes(":11434")
            ? { models: ["llama3.1:8b", "qwen2.5-coder"] }
            : { models: [], problem: "Cannot reach api.anthropic.com:443 (no such host). Check the Base URL." },
        ),
    );
    const { page, host } = chat;
    const baseURL = page.getByRole("textbox", { name: "Base URL", exact: true });
    const model = page.getByRole("combobox", { name: "Model", exact: true });
    const key = page.getByLabel("API key", { exact: true });
    const connect = page.getByRole("button", { name: "Connect", exact: true });
    await baseURL.waitFor({ timeout: 10_000 });
    assert.equal(
      await baseURL.inputValue(),
      "http://127.0.0.1:11434/v1",
      "OpenAI-compatible starts with the local-server example",
    );
    await model.locator("option", { hasText: "qwen2.5-coder" }).waitFor({ state: "attached", timeout: 10_000 });
    assert.deepEqual(await model.locator("option").allTextContents(), ["llama3.1:8b", "qwen2.5-coder", "Other…"]);
    assert.deepEqual(
      host.sent.filter((s) => s.method === "listModels").map((s) => s.params),
      [{ kind: "openai-chat", baseURL: "http://127.0.0.1:11434/v1" }],
    );
    assert.equal(await key.getAttribute("type"), "password");
    await page.screenshot({ path: join(SHOTS, "01-listed.png") });

    // Another kind: its own Base URL (the user had not changed it), listed again; nothing listed → free text with the reason.
    await page.getByRole("combobox", { name: "Provider" }).selectOption({ label: "Anthropic" });
    await page.getByText("Cannot reach api.anthropic.com:443").waitFor({ timeout: 10_000 });
    assert.equal(await baseURL.inputValue(), "https://api.anthropic.com");
    await page.getByRole("textbox", { name: "Model", exact: true }).waitFor();
    assert.equal(await model.count(), 0);
    await page.screenshot({ path: join(SHOTS, "02-not-listed.png") });

    // Back, pick from the list, type the key; the host refuses the key the first time.
    await page.getByRole("combobox", { name: "Provider" }).selectOption({ label: "OpenAI-compatible" });
    await model.selectOption("qwen2.5-coder", { timeout: 10_000 });
    await key.fill(KEY);
    let attempts = 0;
    host.on("connect", () =>
      ++attempts === 1
        ? { ok: false, field: "apiKey", message: "127.0.0.1:11434 refused the API key (HTTP 401: invalid key)." }
        : { ok: true, profileId: "local-11434", model: "qwen2.5-coder" },
    );
    await connect.click();
    const alert = page.getByRole("alert");
    await alert
      .filter({ hasText: "127.0.0.1:11434 refused the API key (HTTP 401: invalid key)." })
      .waitFor({ timeout: 10_000 });
    assert.equal(await key.getAttribute("aria-invalid"), "true");
    assert.equal(await key.evaluate((el) => el === document.activeElement), true, "the field to fix has the focus");
    await page.screenshot({ path: join(SHOTS, "03-key-refused.png") });

    await connect.click();
    await host.waitFor("connect", 2);
    const connects = host.sent.filter((s) => s.method === "connect");
    assert.deepEqual(
      connects.map((s) => s.params),
      [1, 2].map(() => ({
        kind: "openai-chat",
        baseURL: "http://127.0.0.1:11434/v1",
        model: "qwen2.5-coder",
        apiKey: KEY,
      })),
    );
    // The host says "configured" (as it does before answering); the form goes.
    await host.event({
      type: "config",
      changes: { providerConfigured: true, models: [{ provider: "local-11434", model: "qwen2.5-coder" }] },
    });
    await baseURL.waitFor({ state: "detached", timeout: 10_000 });
    await page.screenshot({ path: join(SHOTS, "04-connected.png") });

    // The key went out once per Connect, and nowhere else: not in another request, not in the saved state, not in the page.
    assert.equal(host.sent.filter((s) => JSON.stringify(s.params ?? null).includes(KEY)).length, 2);
    assert.equal(
      await page.evaluate(
        (k) =>
          (sessionStorage.getItem("vscode-state") ?? "").includes(k) || document.documentElement.outerHTML.includes(k),
        KEY,
      ),
      false,
    );
    assert.deepEqual(await violations(page), []);
    assert.deepEqual(
      host.sent.filter((s) => s.method === ("pageerror" as never)),
      [],
    );
  },
);

test(
  "an empty model or Base URL is refused in the form, and Other… takes a typed model",
  { skip: skipReason },
  async (t) => {
    const chat = await open(t, (host) =>
      host.on("hello", () => ({ config: NONE })).on("listModels", () => ({ models: ["m1"] })),
    );
    const { page, host } = chat;
    const model = page.getByRole("combobox", { name: "Model", exact: true });
    await model.locator("option", { hasText: "m1" }).waitFor({ state: "attached", timeout: 10_000 });
    await model.selectOption({ label: "Other…" });
    const typed = page.getByRole("textbox", { name: "Model", exact: true });
    await typed.waitFor();
    await page.getByRole("button", { name: "Connect", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "Choose or type a model." }).waitFor({ timeout: 10_000 });
    assert.equal(await typed.evaluate((el) => el === document.activeElement), true);
    await page.getByRole("textbox", { name: "Base URL", exact: true }).fill("");
    await typed.fill("my-model");
    await page.getByRole("button", { name: "Connect", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "Type the server's Base URL." }).waitFor({ timeout: 10_000 });
    assert.equal(host.count("connect"), 0, "nothing incomplete reaches the host");
    host.on("connect", () => ({ ok: true, profileId: "local", model: "my-model" }));
    await page.getByRole("textbox", { name: "Base URL", exact: true }).fill("http://127.0.0.1:8080/v1");
    await page.getByRole("button", { name: "Connect", exact: true }).click();
    await host.waitFor("connect");
    assert.deepEqual(host.sent.find((s) => s.method === "connect")!.params, {
      kind: "openai-chat",
      baseURL: "http://127.0.0.1:8080/v1",
      model: "my-model",
    });
  },
);

test(
  "Add a model…: the host opens the form over a configured chat, in place of the composer; Cancel brings the chat back",
  { skip: skipReason },
  async (t) => {
    const chat = await open(t, (host) =>
      host
        .on("hello", () => ({ config: CONFIG, snapshot: snapshot(conversation(1, 2)) }))
        .on("listModels", () => ({ models: ["m1"] })),
    );
    const { page, host } = chat;
    const message = page.getByRole("textbox", { name: "Message", exact: true });
    await message.waitFor({ timeout: 10_000 });
    assert.equal(await page.getByRole("textbox", { name: "Base URL" }).count(), 0, "a configured chat shows no form");
    await host.event({ type: "connect" });
    await page.getByRole("textbox", { name: "Base URL", exact: true }).waitFor({ timeout: 10_000 });
    await message.waitFor({ state: "detached" });
    // One control named Model: the form's (the composer's model picker is gone with it).
    await page
      .getByRole("combobox", { name: "Model", exact: true })
      .locator("option", { hasText: "m1" })
      .waitFor({ state: "attached", timeout: 10_000 });
    assert.equal(await page.getByLabel("Model", { exact: true }).count(), 1);
    await page.screenshot({ path: join(SHOTS, "05-add-a-model.png") });
    await page.getByRole("button", { name: "Cancel", exact: true }).click();
    await message.waitFor({ timeout: 10_000 });
    assert.equal(await page.getByRole("textbox", { name: "Base URL" }).count(), 0);
  },
);

test("a form asked for before the view loaded opens with the hello", { skip: skipReason }, async (t) => {
  const chat = await open(t, (host) =>
    host.on("hello", () => ({ config: CONFIG, connect: true })).on("listModels", () => ({ models: [] })),
  );
  await chat.page.getByRole("textbox", { name: "Base URL", exact: true }).waitFor({ timeout: 10_000 });
  await chat.page.getByRole("button", { name: "Cancel", exact: true }).waitFor();
});
