import assert from "node:assert/strict";
import { test } from "node:test";
import { ProviderConfig } from "../../../extension/config/providers";
import { chatFoldersOf } from "../../../extension/chat/folders-from-registry";
import { createWorkspaceRuntime } from "../../../core/runtime";
import { FolderRegistry } from "../../../extension/folders/registry";
import * as fake from "../../support/vscode-fake";
import { tempDir } from "../../support/temp";
import { configure, fakeContext, folder, setFolders } from "../../support/extension/helpers";
import { ChatController, recordingActions, view } from "./helpers";

/** The extension's real settings, folder runtimes and chat wiring over the vscode fake (the window's folders set first). */
function chatOverSettings(t: { after(fn: () => unknown): void }, env: NodeJS.ProcessEnv) {
  const context = fakeContext();
  const config = new ProviderConfig(context.secrets, context.workspaceState, env);
  const runtimes = new FolderRegistry(createWorkspaceRuntime, config);
  const controller = new ChatController(chatFoldersOf(runtimes, config));
  t.after(async () => {
    controller.dispose();
    await runtimes.close();
    runtimes.dispose();
    config.dispose();
  });
  return { config, runtimes, controller };
}

const PROFILE = {
  id: "local",
  protocol: "openai-chat",
  baseURL: "http://127.0.0.1:9/v1",
  model: "m1",
  contextWindow: 8000,
};

test("open chat views follow provider, model, agent and key changes, and are sent only what changed", async (t) => {
  const root = tempDir(t);
  t.after(() =>
    ["downcity.providers", "downcity.agents", "downcity.defaultProvider"].forEach((k) => delete fake.settings[k]),
  );
  setFolders([folder(root, 0, "proj")]);
  const { config, runtimes, controller } = chatOverSettings(t, {});
  const v = view(controller, recordingActions());
  const second = view(controller, recordingActions());

  // No provider yet: the empty state's config, no model.
  const hello = await v.request("hello", {});
  await second.request("hello", {});
  assert.equal(hello.config.providerConfigured, false);
  assert.deepEqual(hello.config.models, []);
  const folderKey = runtimes.all()[0]!.folder.uri.toString();
  const snap = await v.request("newSession", { folderKey });
  const ref = snap.ref;
  assert.equal(snap.model, undefined);
  const sent = () => v.hostEvents().filter((e) => e.type !== "session-switched");

  // A profile appears: both views hear it; this one also gets the model its session now uses.
  configure({ "downcity.providers": [PROFILE] });
  await v.untilHostEvent((e) => e.type === "model");
  await second.untilHostEvent((e) => e.type === "config");
  const withWindow = { provider: "local", model: "m1", contextWindow: 8000 };
  assert.deepEqual(sent(), [
    { type: "config", changes: { providerConfigured: true, models: [withWindow] } },
    { type: "model", ref, model: withWindow },
  ]);
  assert.deepEqual(
    second.hostEvents(),
    [{ type: "config", changes: { providerConfigured: true, models: [withWindow] } }],
    "a view showing no session gets no model event",
  );

  // An agent from settings: only the agents.
  configure({ "downcity.agents": [{ id: "review", name: "Review" }] });
  await v.untilHostEvent((e) => e.type === "config", 2);
  assert.deepEqual(sent()[2], {
    type: "config",
    changes: {
      agents: [
        { id: "code", name: "Code" },
        { id: "ask", name: "Ask" },
        { id: "review", name: "Review" },
      ],
    },
  });

  // Select Model (the command): only the model.
  await config.select({ provider: "local", model: "m2" });
  await v.untilHostEvent((e) => e.type === "model", 2);
  assert.deepEqual(sent()[3], { type: "model", ref, model: { provider: "local", model: "m2" } });

  // Set API Key changes nothing the view shows: nothing is sent.
  await config.setApiKey("local", "sk-unseen-4411");
  await controller.refreshConfig();
  assert.equal(sent().length, 4);
  assert.ok(!JSON.stringify(v.posted).includes("sk-unseen-4411"));

  // The view's own choice wins over the default, and goes with its profile.
  await v.request("selectModel", { ref, model: withWindow });
  configure({ "downcity.providers": [{ ...PROFILE, contextWindow: 16000 }] });
  await v.untilHostEvent((e) => e.type === "model", 3);
  assert.deepEqual(
    sent().slice(4),
    [
      { type: "config", changes: { models: [{ ...withWindow, contextWindow: 16000 }] } },
      { type: "model", ref, model: { ...withWindow, contextWindow: 16000 } },
    ],
    "the context meter's window follows the profile",
  );
  configure({ "downcity.providers": undefined });
  await v.untilHostEvent((e) => e.type === "model", 4);
  assert.deepEqual(sent().slice(6), [
    { type: "config", changes: { providerConfigured: false, models: [] } },
    { type: "model", ref },
  ]);
  assert.equal(
    v.hostEvents().filter((e) => e.type === "session-switched").length,
    0,
    "the conversation is never re-sent",
  );

  // A burst of changes: a bounded number of passes, each view told the end state once.
  const before = sent().length;
  let passes = 0;
  const compute = controller.config.bind(controller);
  controller.config = () => (passes++, compute());
  for (let i = 0; i < 50; i++) configure({ "downcity.defaultProvider": i % 2 ? "" : "nope" });
  await controller.refreshConfig();
  assert.equal(passes, 2, "the first change and one pass for the other 49");
  assert.equal(sent().length, before, "nothing the view shows changed");
});

test("granting workspace trust sends the open views only restricted: null", async (t) => {
  // Trust granted: the restricted notice goes (restricted: null), nothing else is sent.
  const root = tempDir(t);
  setFolders([folder(root, 0, "proj")]);
  (fake.workspace as { isTrusted: boolean }).isTrusted = false;
  t.after(() => void ((fake.workspace as { isTrusted: boolean }).isTrusted = true));
  const { controller } = chatOverSettings(t, {
    DOWNCITY_PROTOCOL: "openai-chat",
    DOWNCITY_MODEL: "env-model",
    DOWNCITY_BASE_URL: "http://127.0.0.1:9/v1",
  });
  const v = view(controller, recordingActions());
  const hello = await v.request("hello", {});
  assert.match(hello.config.restricted, /not trusted/);
  (fake.workspace as { isTrusted: boolean }).isTrusted = true;
  fake.fire.grantTrust.fire();
  await v.untilHostEvent((e) => e.type === "config");
  assert.deepEqual(v.hostEvents(), [{ type: "config", changes: { restricted: null } }]);
});
