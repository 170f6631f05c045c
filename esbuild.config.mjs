// One entry per bundle. The CLI is built now; the extension (CJS, `vscode`
// external) and the webview (browser IIFE) are added here as their issues land.
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";

// Native addons cannot be bundled; they are resolved from node_modules at run time.
const nodeExternal = ["@mongodb-js/zstd"];

const bundles = [
  {
    entryPoints: ["cli/main.ts"],
    outfile: "dist/cli.js",
    platform: "node",
    format: "cjs",
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
    external: nodeExternal,
  },
  {
    entryPoints: ["extension/activate.ts"],
    outfile: "dist/extension.js",
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode", ...nodeExternal],
  },
  {
    entryPoints: ["webview/main.ts"],
    outfile: "dist/webview.js",
    platform: "browser",
    format: "iife",
    target: "es2022",
    legalComments: "none",
    alias: { zod: "./webview/zod-lite.mjs" },
  },
];

// The webview loads fonts only from media/: codicons are copied there from the package.
function copyCodicons() {
  const from = "node_modules/@vscode/codicons/dist";
  if (!existsSync(from)) return;
  mkdirSync("media/codicons", { recursive: true });
  for (const file of ["codicon.css", "codicon.ttf"]) copyFileSync(`${from}/${file}`, `media/codicons/${file}`);
}
copyCodicons();

const watch = process.argv.includes("--watch");
for (const options of bundles) {
  // A bundle whose entry does not exist yet (its issue has not landed) is skipped.
  if (!existsSync(options.entryPoints[0])) continue;
  await build({ bundle: true, sourcemap: true, logLevel: "warning", minify: !watch, ...options });
}
