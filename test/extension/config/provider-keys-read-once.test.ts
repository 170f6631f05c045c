// Issue 19 (first5, round 3): every run re-read the provider keys from SecretStorage, a round trip
// to the workbench (14–35 ms in code-server) before the first request could leave. The keys are
// read once and forgotten on any change: a key set here, or in another window, is used at once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ProviderConfig, secretKey } from "../../../extension/config/providers";
import * as fake from "../../support/vscode-fake";
import { fakeContext, MemorySecrets } from "../../support/extension/helpers";

/** MemorySecrets counting reads, with a write that another window makes (the store changes, the event follows). */
class CountingSecrets extends MemorySecrets {
  reads = 0;
  override async get(key: string) {
    this.reads++;
    return super.get(key);
  }
}

test("provider keys are read from SecretStorage once, and every change is seen at the next read", async (t) => {
  fake.settings["downcity.providers"] = [
    { id: "local", protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", model: "m1" },
  ];
  t.after(() => delete fake.settings["downcity.providers"]);
  const context = fakeContext();
  const secrets = new CountingSecrets();
  const config = new ProviderConfig(secrets, context.workspaceState, {});
  t.after(() => config.dispose());

  const key = async () => (await config.profiles())[0]!.apiKey;
  assert.equal(await key(), "not-needed", "a keyless local server gets the placeholder");
  assert.equal(await key(), "not-needed");
  await config.choices();
  assert.equal(secrets.reads, 1, "three reads of the profiles, one SecretStorage read");

  // Set API Key (or Connect) in this window: the next run has it.
  await config.setApiKey("local", "sk-first");
  assert.equal(await key(), "sk-first");
  // Another window stores a key: SecretStorage's change event forgets the one read here.
  await secrets.store(secretKey("local"), "sk-other-window");
  assert.equal(await key(), "sk-other-window");
  // Removed (Connect with no key): back to the placeholder.
  await config.setApiKey("local", undefined);
  assert.equal(await key(), "not-needed");
  assert.equal(secrets.values.has(secretKey("local")), false);
  assert.equal(secrets.reads, 4, "one read after each change, none in between");
});
