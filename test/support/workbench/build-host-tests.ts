// Bundles the in-host tests (test/host/index.ts + every test/host/*.host.ts) into
// dist/host-tests/, the folder an extension host loads them from. `vscode` comes from
// the extension host; mocha and the native zstd addon resolve from node_modules.
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { PROJECT_ROOT } from "./code-server";

export const HOST_TESTS_DIR = join(PROJECT_ROOT, "dist", "host-tests");

export async function buildHostTests(): Promise<string> {
  const source = join(PROJECT_ROOT, "test", "host");
  const entryPoints = readdirSync(source)
    .filter((f) => f === "index.ts" || f.endsWith(".host.ts"))
    .map((f) => join(source, f));
  // A test whose source was deleted must not keep running from a stale bundle.
  rmSync(HOST_TESTS_DIR, { recursive: true, force: true });
  await build({
    entryPoints,
    outdir: HOST_TESTS_DIR,
    outbase: source,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    sourcemap: "inline",
    logLevel: "warning",
    external: ["vscode", "mocha", "@mongodb-js/zstd"],
  });
  return join(HOST_TESTS_DIR, "index.js");
}
