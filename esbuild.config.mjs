// One entry per bundle. The CLI is built now; the extension (CJS, `vscode`
// external) and the webview (browser IIFE) are added here as their issues land.
import { build } from "esbuild";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";

// Native addons cannot be bundled; they are resolved from node_modules at run time.
const nodeExternal = ["@mongodb-js/zstd"];

// The CLI's entry is tiny: each command is a bundle of its own, required only when it runs,
// so `--help` compiles a few KiB instead of the store, zod and the provider SDKs. `sessions list`
// runs from `cli-sessions.js` alone (meta.json checked by hand, no zod): the other `sessions`
// commands require the store (`cli-sessions-manage.js`), `compact` the runtime (agent, SDKs), and
// a list meets an unusable meta.json only rarely, so it requires the log parser then.
const CLI_SPLITS = [
  { importer: "cli/main.ts", path: "./commands/run", entry: "cli/commands/run.ts", out: "cli-run.js" },
  { importer: "cli/main.ts", path: "./commands/sessions", entry: "cli/commands/sessions.ts", out: "cli-sessions.js" },
  {
    importer: "cli/commands/sessions.ts",
    path: "./sessions-search",
    entry: "cli/commands/sessions-search.ts",
    out: "cli-sessions-search.js",
  },
  {
    importer: "cli/commands/sessions.ts",
    path: "./sessions-manage",
    entry: "cli/commands/sessions-manage.ts",
    out: "cli-sessions-manage.js",
  },
  {
    importer: "cli/commands/sessions-manage.ts",
    path: "../../core/runtime/create",
    entry: "core/runtime/create.ts",
    out: "cli-runtime.js",
  },
  // Only out of the list's bundle: the others hold the log parser already.
  {
    importer: "core/storage/list/list.ts",
    path: "./list-rebuild",
    entry: "core/storage/list/list-rebuild.ts",
    out: "cli-list-rebuild.js",
    within: "cli-sessions.js",
  },
];
const cliSplits = (bundle) => ({
  name: "cli-splits",
  setup(b) {
    b.onResolve({ filter: /^\./ }, (args) => {
      const split = CLI_SPLITS.find(
        (s) => s.path === args.path && resolve(s.importer) === args.importer && (s.within ?? bundle) === bundle,
      );
      return split ? { path: `./${split.out}`, external: true } : undefined;
    });
  },
});
const cliOptions = (bundle) => ({
  platform: "node",
  format: "cjs",
  target: "node20",
  external: nodeExternal,
  plugins: [cliSplits(bundle)],
});

// The extension host compiles its whole bundle at every start, before the Sessions tree can draw (about 90 ms a
// MB on this machine): packages loaded only on first use are bundles of their own, required then. The provider
// SDKs at the first model call (core/llm/adapters/sdks.ts), re2js at the first regular expression
// (core/search/re2.ts).
const EXTENSION_SPLITS = [
  { path: "openai", importer: "core/llm/adapters/sdks.ts", out: "sdk-openai.js" },
  { path: "@anthropic-ai/sdk", importer: "core/llm/adapters/sdks.ts", out: "sdk-anthropic.js" },
  { path: "re2js", importer: "core/search/re2.ts", out: "re2js.js" },
];
const extensionSplits = {
  name: "extension-splits",
  setup(b) {
    b.onResolve({ filter: /^[@a-z]/ }, (args) => {
      const split = EXTENSION_SPLITS.find((s) => s.path === args.path && resolve(s.importer) === args.importer);
      return split ? { path: `./${split.out}`, external: true } : undefined;
    });
    // zod puts its 48 locales (about 250 KB) in `z.locales`; nothing here sets one, and English is its default.
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
        ? { path: resolve("scripts/zod-locales-en.mjs") }
        : undefined,
    );
  },
};

const bundles = [
  {
    entryPoints: ["cli/main.ts"],
    outfile: "dist/cli.js",
    banner: { js: "#!/usr/bin/env node" },
    ...cliOptions("cli.js"),
  },
  ...CLI_SPLITS.map(({ entry, out }) => ({ entryPoints: [entry], outfile: `dist/${out}`, ...cliOptions(out) })),
  {
    entryPoints: ["extension/activate.ts"],
    outfile: "dist/extension.js",
    // The first hop of a traced start (core/util/hop-trace.ts): when the host begins evaluating the bundle.
    banner: {
      js: '"use strict";process.env.DOWNCITY_HOP_TRACE&&require("node:fs").appendFileSync(process.env.DOWNCITY_HOP_TRACE,JSON.stringify({hop:"bundle loading",t:performance.timeOrigin+performance.now()})+"\\n");',
    },
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode", ...nodeExternal],
    plugins: [extensionSplits],
  },
  // A workspace's first window at scale lists the Sessions tree's first pages on a worker thread running this
  // (extension/sessions/off-thread-pages.ts).
  {
    entryPoints: ["core/storage/list/first-page-worker.ts"],
    outfile: "dist/first-page-worker.js",
    platform: "node",
    format: "cjs",
    target: "node20",
  },
  ...EXTENSION_SPLITS.map(({ path, out }) => ({
    entryPoints: [path],
    outfile: `dist/${out}`,
    platform: "node",
    format: "cjs",
    target: "node20",
  })),
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
  await build({ bundle: true, sourcemap: true, logLevel: "warning", minify: !watch, ...options });
}
