import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import * as vscode from "vscode";
import type { AgentEvent } from "../../../core/protocol";
import { activate, deactivate } from "../../../extension/activate";
import { useSeams } from "../../../extension/seams";
import { secretKey } from "../../../extension/config/providers";
import * as fake from "../../support/vscode-fake";
import { startProviderServer, wire } from "../../support/provider-server";
import { tempDir } from "../../support/temp";
import { activateWithEnvProvider, answer, fakeContext, folder, setFolders } from "../../support/extension/helpers";

const KEY = "sk-downcity-test-7f3a9c1e55d2";

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

test("API keys live only in SecretStorage: never in session files, logs, settings, state or what the chat is sent", async (t) => {
  const root = tempDir(t);
  const auth: (string | undefined)[] = [];
  const server = await startProviderServer(({ path, headers }) => {
    auth.push(headers.authorization);
    if (path === "/v1/models") return { json: { object: "list", data: [{ id: "m1" }, { id: "m2" }] } };
    return { sse: wire.openaiChat({ text: "done, nothing to change", usage: { input: 900, output: 100 } }) };
  });
  t.after(() => server.close());
  fake.settings["downcity.providers"] = [
    { id: "local", protocol: "openai-chat", baseURL: server.baseURL, model: "m1", contextWindow: 10_000 },
  ];
  t.after(() => delete fake.settings["downcity.providers"]);
  setFolders([folder(root, 0, "proj")]);
  const context = fakeContext();
  const host = (useSeams({ env: {}, openInChat: async () => {}, restAtOnce: true }), await activate(context));
  t.after(async () => {
    await deactivate();
    context.subscriptions.forEach((d) => d.dispose());
  });
  await host.tree.ready;

  // Set API Key: one profile, so no pick; the input box is a password box.
  const asked = answer("showInputBox", async () => KEY);
  await vscode.commands.executeCommand("downcity.setApiKey");
  assert.equal(asked[0]![0].password, true);
  assert.equal(context.secrets.values.get(secretKey("local")), KEY);

  // Select Model offers the configured model and the ones the server lists.
  let offered: string[] = [];
  answer("showQuickPick", async (items: Promise<any[]>) => {
    const list = await items;
    offered = list.filter((i) => i.selection).map((i) => `${i.selection.provider}/${i.selection.model}`);
    return list.find((i) => i.selection?.model === "m1");
  });
  await vscode.commands.executeCommand("downcity.selectModel");
  assert.deepEqual(offered, ["local/m1", "local/m2"]);
  assert.match(host.status.text, /m1/);

  // A run through the runtime, as the chat would start it; every agent event is what the chat forwards.
  const { runtime } = host.runtimes.all()[0]!;
  const forwarded: AgentEvent[] = [];
  runtime.onEvent((e) => forwarded.push(e));
  const session = runtime.create("code");
  host.status.setActive(root, { agentId: "code", sessionId: session.id });
  const [result] = await runtime.prompt({ agentId: "code", sessionId: session.id }, "look around");
  assert.equal(result?.reason, "completed", result?.error);
  assert.ok(auth.includes(`Bearer ${KEY}`), "the key reached the provider");
  assert.match(host.status.text, /m1 · 10%/, "the status bar shows the real context use");
  await host.runtimes.close();

  const leaks: string[] = [];
  for (const file of filesUnder(join(root, ".downcity"))) if (readFileSync(file).includes(KEY)) leaks.push(file);
  const scanned = {
    output: fake.created.output,
    settings: fake.settings,
    workspaceState: context.workspaceState.keys().map((k) => context.workspaceState.get(k)),
    chat: forwarded,
    choices: await host.config.choices(),
    status: fake.created.statusBarItems.map((i) => [i.text, i.tooltip]),
  };
  for (const [where, value] of Object.entries(scanned)) if (JSON.stringify(value).includes(KEY)) leaks.push(where);
  assert.deepEqual(leaks, []);
  assert.ok(
    forwarded.length > 3 && filesUnder(join(root, ".downcity")).length > 1,
    "the scan saw a real run's events and files",
  );
});

test("Set API Key gives the environment's provider a key: the next request carries it instead of the placeholder", async (t) => {
  const root = tempDir(t);
  const auth: (string | undefined)[] = [];
  const server = await startProviderServer(({ headers }) => {
    auth.push(headers.authorization);
    return { sse: wire.openaiChat({ text: "ok" }) };
  });
  t.after(() => server.close());
  const { host, context } = await activateWithEnvProvider(t, root, server.baseURL);
  const { runtime } = host.runtimes.all()[0]!;
  const run = async () => {
    const session = runtime.create("code");
    const [result] = await runtime.prompt({ agentId: "code", sessionId: session.id }, "hi");
    assert.equal(result?.reason, "completed", result?.error);
  };

  await run();
  assert.deepEqual(auth, ["Bearer not-needed"], "without a key, local servers get the placeholder");
  assert.equal((await host.config.choices())[0]?.hasKey, false);
  answer("showInputBox", async () => ` ${KEY} `);
  await vscode.commands.executeCommand("downcity.setApiKey");
  assert.equal(context.secrets.values.get(secretKey("env")), KEY);
  assert.equal((await host.config.choices())[0]?.hasKey, true);
  await run();
  assert.equal(auth[1], `Bearer ${KEY}`);
  await host.runtimes.close();
  for (const file of filesUnder(join(root, ".downcity")))
    assert.ok(!readFileSync(file).includes(KEY), `${file} holds the key`);
});
