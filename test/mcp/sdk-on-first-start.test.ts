// The MCP SDK builds about a thousand zod schemas (and an Ajv) when it is evaluated: the extension host paid that
// at every start-up, on the way to the Sessions tree's first row (BENCHMARKS.md, "The Sessions tree at scale").
// It is evaluated at the first server start instead. zod calls its global post-processor for every schema it builds.
import assert from "node:assert/strict";
import { test } from "node:test";

let built = 0;
(globalThis as { __zod_globalConfig?: object }).__zod_globalConfig = { postProcessor: () => void built++ };

test("loading the extension builds none of the MCP SDK's schemas: the first server start does", async () => {
  // The rest of the extension holds the MCP feature (extension/features.ts).
  await import("../../extension/features");
  const atLoad = built;
  assert.ok(atLoad > 100, `the count sees the extension's own schemas (${atLoad})`);
  const { mcpSdk } = await import("../../core/mcp/load-sdk");
  await mcpSdk();
  const bySdk = built - atLoad;
  assert.ok(bySdk > 300, `the SDK's schemas are built when it is first needed, not at load (${bySdk} then)`);
});
