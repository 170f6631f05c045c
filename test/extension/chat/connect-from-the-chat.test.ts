// Connect from the chat, host side, over the extension's real settings, SecretStorage
// wiring, folder runtimes and RPC server (vscode fake), against a real HTTP server on
// 127.0.0.1 speaking each provider kind's wire format.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Protocol } from "../../../core/llm/types";
import { Connector } from "../../../extension/config/connect";
import { ProviderConfig, secretKey } from "../../../extension/config/providers";
import { chatFoldersOf } from "../../../extension/chat/folders-from-registry";
import { createWorkspaceRuntime } from "../../../core/runtime";
import { FolderRegistry } from "../../../extension/folders/registry";
import { freePort } from "../../support/workbench/code-server";
import * as fake from "../../support/vscode-fake";
import { startProviderServer, wire } from "../../support/provider-server";
import { tempDir } from "../../support/temp";
import { fakeContext, folder, setFolders } from "../../support/extension/helpers";
import { ChatController, recordingActions, view } from "./helpers";

const KEY = "sk-connect-host-4e8a1f";
const KEYS = ["downcity.providers", "downcity.defaultProvider"];

function chatWithConnect(t: { after(fn: () => unknown): void }) {
  const context = fakeContext();
  const config = new ProviderConfig(context.secrets, context.workspaceState, {});
  const runtimes = new FolderRegistry(createWorkspaceRuntime, config);
  const controller = new ChatController(
    chatFoldersOf(runtimes, config, new Connector(config, () => runtimes.restricted())),
  );
  t.after(async () => {
    controller.dispose();
    await runtimes.close();
    runtimes.dispose();
    config.dispose();
    KEYS.forEach((k) => delete fake.settings[k]);
  });
  return { context, config, runtimes, controller, v: view(controller, recordingActions()) };
}

test("Connect saves the tested profile to the user settings and the key to SecretStorage only; the chat is ready and its request carries the key", async (t) => {
  setFolders([folder(tempDir(t), 0, "proj")]);
  const server = await startProviderServer(({ path, headers }) => {
    if (headers.authorization !== `Bearer ${KEY}`) return wire.error("openai-chat", 401, "Incorrect API key provided");
    if (path === "/v1/models") return { json: { object: "list", data: [{ id: "m-a" }, { id: "m-b" }] } };
    return { sse: wire.openaiChat({ text: "Connected and answering." }) };
  });
  t.after(() => server.close());
  const { context, config, runtimes, v } = chatWithConnect(t);
  const port = new URL(server.origin).port;

  const hello = await v.request("hello", {});
  assert.equal(hello.config.providerConfigured, false);
  // Listed without the key (the form lists before it is typed): the reason is named.
  assert.deepEqual(await v.request("listModels", { kind: "openai-chat", baseURL: server.baseURL }), {
    models: [],
    problem: `127.0.0.1:${port} needs an API key (HTTP 401: Incorrect API key provided).`,
  });

  // A wrong key: named as the key's failure; nothing saved.
  const refused = await v.request("connect", {
    kind: "openai-chat",
    baseURL: server.baseURL,
    model: "m-b",
    apiKey: "sk-wrong",
  });
  assert.deepEqual(refused, {
    ok: false,
    field: "apiKey",
    message: `127.0.0.1:${port} refused the API key (HTTP 401: Incorrect API key provided).`,
  });
  assert.equal(fake.settings["downcity.providers"], undefined);
  assert.equal(context.secrets.values.size, 0);

  const result = await v.request("connect", {
    kind: "openai-chat",
    baseURL: server.baseURL,
    model: "m-b",
    apiKey: ` ${KEY} `,
  });
  const id = `local-${port}`;
  assert.deepEqual(result, { ok: true, profileId: id, model: "m-b" });
  assert.deepEqual(fake.settings["downcity.providers"], [
    { id, protocol: "openai-chat", baseURL: server.baseURL, model: "m-b" },
  ]);
  assert.equal(fake.settings["downcity.defaultProvider"], id);
  assert.equal(context.secrets.values.get(secretKey(id)), KEY, "the key is stored trimmed, under the profile");
  assert.deepEqual(config.selection(), { provider: id, model: "m-b" });
  // The view heard "configured" before the answer to Connect.
  const configured = v.posted.findIndex(
    (m) => m.kind === "event" && m.event.type === "config" && m.event.changes.providerConfigured === true,
  );
  const answered = v.posted.findIndex(
    (m) => m.kind === "response" && "result" in m && (m.result as { ok?: boolean } | undefined)?.ok === true,
  );
  assert.ok(configured >= 0 && configured < answered, "config event before the connect response");

  // Ready without a reload: a prompt runs on the new profile and its request carries the key.
  const snap = await v.request("newSession", { folderKey: runtimes.all()[0]!.folder.uri.toString() });
  assert.deepEqual(snap.model, { provider: id, model: "m-b" });
  await v.request("prompt", { ref: snap.ref, text: "hello" });
  await v.until((e) => e.type === "turn-ended");
  const call = server.requests.find((r) => r.path === "/v1/chat/completions");
  assert.ok(call, "the prompt reached the provider");
  assert.equal(call.headers.authorization, `Bearer ${KEY}`);
  assert.equal(call.body.model, "m-b");
  await v.until((e) => e.type === "session-event" && JSON.stringify(e.event.data).includes("Connected and answering."));

  // The key is in SecretStorage only: not in settings, the memento, or anything posted to the webview.
  assert.doesNotMatch(JSON.stringify(fake.settings), new RegExp(KEY));
  assert.doesNotMatch(
    JSON.stringify(context.workspaceState.keys().map((k) => context.workspaceState.get(k))),
    new RegExp(KEY),
  );
  assert.doesNotMatch(JSON.stringify(v.posted), new RegExp(KEY));

  // Connecting the same server again replaces its profile (same id), with the other model.
  assert.deepEqual(
    await v.request("connect", { kind: "openai-chat", baseURL: server.baseURL, model: "m-a", apiKey: KEY }),
    { ok: true, profileId: id, model: "m-a" },
  );
  assert.deepEqual(fake.settings["downcity.providers"], [
    { id, protocol: "openai-chat", baseURL: server.baseURL, model: "m-a" },
  ]);
});

for (const [protocol, path, stream] of [
  ["openai-responses", "/v1/responses", () => wire.openaiResponses({ text: "OK" })],
  ["anthropic-messages", "/v1/messages", () => wire.anthropic({ text: "OK" })],
] as const satisfies readonly (readonly [Protocol, string, () => string[]])[]) {
  test(`${protocol}: with no models endpoint, Connect tests with one call in its wire format and saves the profile`, async (t) => {
    setFolders([folder(tempDir(t), 0, "proj")]);
    const server = await startProviderServer(({ path: p }) =>
      p === path ? { sse: stream() } : { status: 404, json: { error: { message: "no such route" } } },
    );
    t.after(() => server.close());
    const { context, v } = chatWithConnect(t);
    await v.request("hello", {});
    const baseURL = protocol === "anthropic-messages" ? server.anthropicBaseURL : server.baseURL;
    const result = await v.request("connect", { kind: protocol, baseURL, model: "served", apiKey: KEY });
    assert.equal(result.ok, true, JSON.stringify(result));
    const call = server.requests.find((r) => r.path === path);
    assert.ok(call, `no ${path} request: ${server.requests.map((r) => r.path).join(", ")}`);
    assert.equal(call.body.model, "served");
    assert.deepEqual(fake.settings["downcity.providers"], [
      { id: result.profileId, protocol, baseURL, model: "served" },
    ]);
    assert.equal(context.secrets.values.get(secretKey(result.profileId)), KEY);
  });
}

test("a server that is down: Connect names host:port and saves nothing; bad input is refused before any request", async (t) => {
  setFolders([folder(tempDir(t), 0, "proj")]);
  const { context, v } = chatWithConnect(t);
  await v.request("hello", {});
  const port = await freePort();
  assert.deepEqual(
    await v.request("connect", {
      kind: "openai-chat",
      baseURL: `http://127.0.0.1:${port}/v1`,
      model: "m",
      apiKey: KEY,
    }),
    {
      ok: false,
      field: "baseURL",
      message: `Cannot reach 127.0.0.1:${port} (connection refused: is the server running?). Check the Base URL.`,
    },
  );
  assert.equal(fake.settings["downcity.providers"], undefined);
  assert.equal(context.secrets.values.size, 0);
  await assert.rejects(
    v.request("connect", { kind: "openai-chat", baseURL: "file:///etc/passwd", model: "m" }),
    (e: Error & { code?: string }) => e.code === "invalid" && /Base URL must be an http/.test(e.message),
  );
  await assert.rejects(
    v.request("connect", { kind: "openai-chat", baseURL: "http://127.0.0.1:1/v1", model: "m", apiKey: KEY, extra: 1 }),
    (e: Error & { code?: string }) => e.code === "invalid" && !e.message.includes(KEY),
  );
});
