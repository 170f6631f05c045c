// One entry per bundle. The CLI is built now; the extension (CJS, `vscode`
// external) and the webview (browser IIFE) are added here as their issues land.
import { build } from "esbuild";
import { existsSync } from "node:fs";

// Native addons cannot be bundled; they are resolved from node_modules at run time.
const nodeExternal = ["@mongodb-js/zstd"];

// The CLI's entry is tiny: each command is a bundle of its own, required only when it runs,
// so `--help` compiles a few KiB instead of the store, zod and the provider SDKs.
const CLI_COMMANDS = ["run", "sessions"];
const cliCommandsExternal = {
  name: "cli-commands-external",
  setup(b) {
    b.onResolve({ filter: /^\.\/commands\/[a-z]+$/ }, (args) => {
      const name = args.path.slice("./commands/".length);
      return CLI_COMMANDS.includes(name) ? { path: `./cli-${name}.js`, external: true } : undefined;
    });
  },
};
const cliOptions = { platform: "node", format: "cjs", target: "node20", external: nodeExternal };

const bundles = [
  { entryPoints: ["cli/main.ts"], outfile: "dist/cli.js", banner: { js: "#!/usr/bin/env node" }, plugins: [cliCommandsExternal], ...cliOptions },
  ...CLI_COMMANDS.map((name) => ({ entryPoints: [`cli/commands/${name}.ts`], outfile: `dist/cli-${name}.js`, ...cliOptions })),
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
  },
];

const watch = process.argv.includes("--watch");
for (const options of bundles) {
  // A bundle whose entry does not exist yet (its issue has not landed) is skipped.
  if (!existsSync(options.entryPoints[0])) continue;
  await build({ bundle: true, sourcemap: true, logLevel: "warning", minify: !watch, ...options });
}
