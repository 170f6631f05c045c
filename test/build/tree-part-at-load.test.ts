// Issue 20: loading dist/extension.js evaluates what the Sessions tree's first draw needs alone (the tree and what
// it stands on: extension/activate.ts); the rest (extension/features.ts: the chat, the agent, the providers,
// the protocol's schemas) is evaluated when activate() requires it, after the tree's first draw. An eager import of
// a module of the rest (a barrel such as core/runtime's or core/protocol's index) evaluates its schemas at load
// again, and fails here. zod calls its global post-processor for every schema it builds, in the bundle's zod too.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../support/workbench/code-server";

let built = 0;
(globalThis as { __zod_globalConfig?: object }).__zod_globalConfig = { postProcessor: () => void built++ };

test("requiring the bundle builds a small part of the extension's schemas: the rest of the extension builds the others later", async () => {
  require(join(PROJECT_ROOT, "dist", "extension.js"));
  const atLoad = built;
  await import("../../extension/features");
  const all = built - atLoad;
  assert.ok(all > 1000, `the count sees every module's schemas (${all})`);
  assert.ok(atLoad > 0 && atLoad * 5 < all, `the bundle's load built ${atLoad} schemas of ${all}`);
});
