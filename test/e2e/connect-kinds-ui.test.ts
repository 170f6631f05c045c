// The connect form's other ways in (issue 19 item 3), beside connect-ui: a model typed as free text
// when the server lists none, the form opened from "Downcity: Select Model…", and the
// "OpenAI Responses" and "Anthropic" kinds, each prefilling its Base URL and then connected to a
// loopback server that speaks that kind's wire format (its path, its key header). One
// code-server with no provider configured (no DOWNCITY_* either); one loopback server per
// kind. Choosing a kind lists the prefilled (remote) Base URL's models at once: the user
// settings send the extension host's requests through a loopback proxy that refuses every
// tunnel and records its host, so nothing leaves the machine and the test sees the form ask
// the prefilled server. A screenshot per step lands in test/.tmp/e2e/connect-kinds-ui/.
import { strict as assert } from "node:assert";
import { cpSync, readFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT, workbenchUrl } from "../support/workbench/code-server";
import { chatFrame, quickPickRow } from "../support/workbench/workbench";
import { startProviderServer, wire, type ProviderServer, type RecordedRequest } from "../support/provider-server";
import {
  chainedSteps,
  fileMatches,
  filesHolding,
  filesUnder,
  gotoWorkbench,
  missingVsCode,
  openWorkbench,
  outputDir,
  runPaletteCommand,
  installPackagedVsix,
} from "./helpers";

const RESPONSES_KEY = "sk-kinds-responses-5f0a93c2e7";
const ANTHROPIC_KEY = "sk-ant-kinds-anthropic-d41b7e6a08";
const TYPED_MODEL = "typed-model-7b";

/**
 * A loopback HTTP proxy that tunnels nothing: every request is answered 403 and its target
 * (`CONNECT host:port`, or an absolute URL) recorded, with a waiter per target.
 */
async function refusingProxy() {
  const targets: string[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let head = "";
    socket.on("data", (chunk) => {
      if (head.includes("\r\n")) return;
      head += chunk.toString("latin1");
      const line = head.split("\r\n")[0]!;
      if (!head.includes("\r\n")) return;
      targets.push(line.split(" ")[1] ?? line);
      for (const w of [...waiters]) w();
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    targets,
    /** Resolves once a request for `target` came; rejects after `ms` with what did come. */
    asked(target: string, ms: number): Promise<void> {
      if (targets.includes(target)) return Promise.resolve();
      return new Promise((ok, fail) => {
        const waiter = () => {
          if (!targets.includes(target)) return;
          waiters.delete(waiter);
          clearTimeout(timer);
          ok();
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          fail(
            new Error(`the proxy was not asked for ${target} within ${ms} ms (asked: ${targets.join(", ") || "none"})`),
          );
        }, ms);
        waiters.add(waiter);
      });
    },
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sockets) s.destroy();
        server.close(() => ok());
      }),
  };
}

test(
  "connect through each provider kind, a typed model, and the form from the palette, in the real workbench",
  { skip: missingVsCode(), timeout: 420_000 },
  async (t) => {
    const out = outputDir("connect-kinds-ui");
    await installPackagedVsix(out);
    const workspace = join(out, "sample-workspace");
    cpSync(join(PROJECT_ROOT, "sample-workspace"), workspace, { recursive: true });

    // An OpenAI-compatible server whose models endpoint answers 404 under /missing, and an empty
    // list under /empty (Ollama's /api/tags 404 on both): the Model is typed. Keyless, as local servers are.
    const plain = await startProviderServer(({ path }) => {
      if (path.endsWith("/models")) {
        if (path.startsWith("/empty/")) return { json: { object: "list", data: [] } };
        return wire.error("openai-chat", 404, "Not Found");
      }
      if (path === "/empty/v1/chat/completions")
        return { sse: wire.openaiChat({ text: "Answered by the typed model." }) };
      return wire.error("openai-chat", 404, "Not Found");
    });
    t.after(() => plain.close());
    // The Responses API, and only it: the key as a Bearer token.
    const responses = await startProviderServer(({ path, headers }) => {
      if (path === "/v1/models") return { json: { object: "list", data: [{ id: "resp-large" }, { id: "resp-mini" }] } };
      if (headers.authorization !== `Bearer ${RESPONSES_KEY}`)
        return wire.error("openai-responses", 401, "Incorrect API key provided");
      if (path === "/v1/responses")
        return { sse: wire.openaiResponses({ model: "resp-mini", text: "Answered through the Responses API." }) };
      return wire.error("openai-responses", 404, "Not Found");
    });
    t.after(() => responses.close());
    // The Messages API, and only it: the key in x-api-key.
    const anthropic = await startProviderServer(({ path, headers }) => {
      if (headers["x-api-key"] !== ANTHROPIC_KEY) return wire.error("anthropic-messages", 401, "invalid x-api-key");
      if (path === "/v1/models")
        return {
          json: {
            data: [
              {
                type: "model",
                id: "claude-loop-1",
                display_name: "Claude Loop 1",
                created_at: "2026-01-01T00:00:00Z",
              },
            ],
            has_more: false,
            first_id: "claude-loop-1",
            last_id: "claude-loop-1",
          },
        };
      if (path === "/v1/messages")
        return { sse: wire.anthropic({ model: "claude-loop-1", text: "Answered through the Messages API." }) };
      return wire.error("anthropic-messages", 404, "Not Found");
    });
    t.after(() => anthropic.close());
    const proxy = await refusingProxy();
    t.after(() => proxy.close());

    const env: Record<string, string> = {};
    for (const k of [
      "DOWNCITY_PROTOCOL",
      "DOWNCITY_BASE_URL",
      "DOWNCITY_MODEL",
      "DOWNCITY_API_KEY",
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "HTTP_PROXY",
      "HTTPS_PROXY",
      "http_proxy",
      "https_proxy",
      "NO_PROXY",
      "no_proxy",
    ])
      env[k] = "";
    // Loopback goes direct (VS Code's proxy agent never proxies 127.0.0.1); anything else reaches only the proxy.
    const workbench = await openWorkbench(out, { env, settings: { "http.proxy": proxy.url } });
    t.after(() => workbench.close());
    const { page } = workbench;
    await workbench.browser.addInitScript({ content: "window.__name = (f) => f;" });
    const settingsFile = join(workbench.server.userDataDir, "User", "settings.json");
    const step = chainedSteps(t, workbench);
    const chat = () => chatFrame(page);
    const baseURL = () => chat().getByRole("textbox", { name: "Base URL", exact: true });
    const kind = () => chat().getByRole("combobox", { name: "Provider", exact: true });
    const modelHint = () => chat().locator("#connect-model-hint");
    const statusItem = (text: string) => page.locator(".part.statusbar .statusbar-item", { hasText: text }).first();
    const settings = () => readFileSync(settingsFile, "utf8");
    /** The saved profile of `server` (id local-<port>) as settings.json holds it, once it does, with `model`. */
    const savedProfile = async (server: ProviderServer, model: string) => {
      const id = `local-${new URL(server.origin).port}`;
      await fileMatches(settingsFile, new RegExp(`"downcity.defaultProvider":\\s*"${id}"`), 15_000);
      const saved = JSON.parse(settings()) as Record<string, unknown>;
      const profile = (saved["downcity.providers"] as Record<string, unknown>[]).find((p) => p.id === id);
      assert.ok(profile, `settings.json has the profile ${id}`);
      assert.equal(profile.model, model);
      return profile;
    };
    /** Connect is clicked; the form goes and the status bar names `model`. */
    const connect = async (model: string) => {
      await chat().getByRole("button", { name: "Connect", exact: true }).click();
      await baseURL().waitFor({ state: "detached", timeout: 30_000 });
      await statusItem(model).waitFor({ timeout: 30_000 });
    };
    /** `text` sent (in a new session when one is open: its first message), and the assistant's `answer` shown. */
    const ask = async (text: string, answer: string, { newSession }: { newSession: boolean }) => {
      const answers = chat().locator('article[aria-label="Assistant"]');
      if (newSession) {
        await chat().getByRole("button", { name: "New session", exact: true }).click({ timeout: 15_000 });
        await answers.first().waitFor({ state: "detached", timeout: 15_000 });
      }
      await chat().getByRole("textbox", { name: "Message", exact: true }).fill(text, { timeout: 30_000 });
      await chat().getByRole("button", { name: "Send", exact: true }).click();
      await chat().locator('article[aria-label="Assistant"]', { hasText: answer }).waitFor({ timeout: 60_000 });
    };
    /** Opens the form again through "Downcity: Select Model…" → "Add a model…". */
    const addModelFromPalette = async () => {
      await runPaletteCommand(page, "Downcity: Select Model…");
      await quickPickRow(page, "Add a model…").click({ timeout: 30_000 });
      await baseURL().waitFor({ timeout: 30_000 });
    };
    /** Chooses `label` in the Provider control: its Base URL is prefilled, and its models are asked for there. */
    const chooseKind = async (label: string, prefilled: string, tunnel: string) => {
      await kind().selectOption({ label });
      await chat().locator("#connect-base-hint").filter({ hasText: prefilled }).waitFor({ timeout: 15_000 });
      assert.equal(await baseURL().inputValue(), prefilled);
      // The prefilled server is asked for its models (the proxy refuses): the form says it cannot reach it.
      await proxy.asked(tunnel, 30_000);
      await modelHint()
        .filter({ hasText: `Cannot reach ${tunnel}` })
        .waitFor({ timeout: 30_000 });
    };
    const typeBaseURL = async (url: string) => {
      await baseURL().fill(url);
      await baseURL().press("Tab");
    };

    await step("01 with no provider, the chat opens on the connect form (OpenAI-compatible)", async () => {
      await gotoWorkbench(page, workbenchUrl(workbench.server, workspace));
      await page.locator(".monaco-workbench .part.activitybar").waitFor({ timeout: 60_000 });
      await page
        .locator('.part.activitybar .action-item a.action-label[aria-label^="Downcity"]')
        .click({ timeout: 30_000 });
      await baseURL().waitFor({ timeout: 60_000 });
      await statusItem("Downcity: no model").waitFor({ timeout: 30_000 });
      assert.equal(await kind().locator("option:checked").textContent(), "OpenAI-compatible");
      assert.equal(await baseURL().inputValue(), "http://127.0.0.1:11434/v1");
    });

    await step("02 a server whose models endpoint answers 404: the form says so, the Model is free text", async () => {
      await typeBaseURL(`${plain.origin}/missing/v1`);
      await modelHint()
        .filter({ hasText: `127.0.0.1:${new URL(plain.origin).port} lists no models at /missing/v1/models (HTTP 404` })
        .waitFor({ timeout: 30_000 });
      await chat().getByRole("textbox", { name: "Model", exact: true }).waitFor({ timeout: 15_000 });
      assert.equal(await chat().getByRole("combobox", { name: "Model", exact: true }).count(), 0);
    });

    await step(
      "03 a server that lists no models: the form says so; Connect with the typed model saves it",
      async () => {
        await typeBaseURL(`${plain.origin}/empty/v1`);
        await modelHint()
          .filter({ hasText: "The server lists no models: type the model's name." })
          .waitFor({ timeout: 30_000 });
        const model = chat().getByRole("textbox", { name: "Model", exact: true });
        await model.fill(TYPED_MODEL);
        await model.press("Tab");
        await connect(TYPED_MODEL);
        const profile = await savedProfile(plain, TYPED_MODEL);
        assert.equal(profile.protocol, "openai-chat");
        assert.equal(profile.baseURL, `${plain.origin}/empty/v1`);
        // Connect tried the typed model with one request, as it is not listed.
        assert.ok(
          plain.requests.some((r) => r.path === "/empty/v1/chat/completions" && r.body?.model === TYPED_MODEL),
          "Connect tested the typed model",
        );
      },
    );

    await step("04 a message is answered through the typed model", async () => {
      const before = plain.requests.length;
      await ask("ping typed", "Answered by the typed model.", { newSession: false });
      assert.ok(
        plain.requests
          .slice(before)
          .some((r) => r.path === "/empty/v1/chat/completions" && r.body?.model === TYPED_MODEL),
        "the run asked the typed model",
      );
    });

    await step("05 Downcity: Select Model… offers Add a model…, which opens the form", async () => {
      await addModelFromPalette();
      await chat().getByRole("button", { name: "Cancel", exact: true }).waitFor({ timeout: 15_000 });
    });

    await step("06 OpenAI Responses prefills its Base URL; Connect through it saves the profile", async () => {
      await chooseKind("OpenAI Responses", "https://api.openai.com/v1", "api.openai.com:443");
      await typeBaseURL(responses.baseURL);
      const model = chat().getByRole("combobox", { name: "Model", exact: true });
      await model.locator("option", { hasText: "resp-mini" }).waitFor({ state: "attached", timeout: 30_000 });
      await model.selectOption("resp-mini");
      await chat().getByLabel("API key", { exact: true }).fill(RESPONSES_KEY);
      await connect("resp-mini");
      const profile = await savedProfile(responses, "resp-mini");
      assert.equal(profile.protocol, "openai-responses");
      assert.equal(profile.baseURL, responses.baseURL);
      assert.ok(!settings().includes(RESPONSES_KEY), "the key is not in settings.json");
    });

    await step("07 a message is answered through the Responses API, with the key as a Bearer token", async () => {
      await ask("ping responses", "Answered through the Responses API.", { newSession: true });
      const call = responses.requests.find((r) => r.method === "POST" && r.path === "/v1/responses");
      assert.ok(call, `a POST /v1/responses came (paths: ${responses.requests.map((r) => r.path).join(", ")})`);
      assert.equal(call.headers.authorization, `Bearer ${RESPONSES_KEY}`);
      assert.equal(call.body?.model, "resp-mini");
      assert.ok(!responses.requests.some((r) => r.path.endsWith("/chat/completions")), "no Chat Completions call");
    });

    await step("08 Anthropic prefills its Base URL; Connect through it saves the profile", async () => {
      await statusItem("resp-mini").click({ timeout: 15_000 });
      await quickPickRow(page, "Add a model…").click({ timeout: 30_000 });
      await baseURL().waitFor({ timeout: 30_000 });
      await chooseKind("Anthropic", "https://api.anthropic.com", "api.anthropic.com:443");
      // As api.anthropic.com, the server lists its models only with the key, and the form lists
      // before a key is typed: it says why, and the Model is typed; Connect then tests with the key.
      await typeBaseURL(anthropic.anthropicBaseURL);
      await modelHint()
        .filter({ hasText: `127.0.0.1:${new URL(anthropic.origin).port} needs an API key (HTTP 401` })
        .waitFor({ timeout: 30_000 });
      await chat().getByRole("textbox", { name: "Model", exact: true }).fill("claude-loop-1");
      await chat().getByLabel("API key", { exact: true }).fill(ANTHROPIC_KEY);
      await connect("claude-loop-1");
      const profile = await savedProfile(anthropic, "claude-loop-1");
      assert.equal(profile.protocol, "anthropic-messages");
      assert.equal(profile.baseURL, anthropic.anthropicBaseURL);
      assert.ok(!settings().includes(ANTHROPIC_KEY), "the key is not in settings.json");
    });

    await step("09 a message is answered through the Messages API, with the key in x-api-key", async () => {
      const before = anthropic.requests.length;
      await ask("ping anthropic", "Answered through the Messages API.", { newSession: true }).catch((error: Error) => {
        const seen = anthropic.requests
          .slice(before)
          .map(
            (r: RecordedRequest) =>
              `${r.method} ${r.path} x-api-key=${r.headers["x-api-key"] === ANTHROPIC_KEY ? "the key" : String(r.headers["x-api-key"]).slice(0, 12)} authorization=${String(r.headers.authorization).slice(0, 16)}`,
          );
        error.message = `${error.message}\nthe Anthropic server saw: ${seen.join(" | ") || "nothing"}`;
        throw error;
      });
      const call = anthropic.requests.find((r: RecordedRequest) => r.method === "POST" && r.path === "/v1/messages");
      assert.ok(call, `a POST /v1/messages came (paths: ${anthropic.requests.map((r) => r.path).join(", ")})`);
      assert.equal(call.headers["x-api-key"], ANTHROPIC_KEY);
      assert.equal(call.headers.authorization, undefined);
      assert.ok(call.headers["anthropic-version"], "the anthropic-version header is sent");
      assert.equal(call.body?.model, "claude-loop-1");
      // Keys live in SecretStorage only: in no file of the workspace, the logs or settings.json.
      const keys = [RESPONSES_KEY, ANTHROPIC_KEY];
      const leaks = filesHolding(
        [join(workspace, ".downcity"), join(workbench.runDir, "user-data", "logs")]
          .flatMap(filesUnder)
          .concat([settingsFile, workbench.server.logFile]),
        keys,
      );
      assert.deepEqual(leaks, []);
    });
  },
);
