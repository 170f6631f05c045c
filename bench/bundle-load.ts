/**
 * What loading the extension's bundle costs the extension host before `activate` can run (issue 20: the Sessions
 * tree's first row waits for it). Each sample is a fresh `node` that requires the bundle with a stand-in `vscode`
 * module (every name the API declares, each a constructible stub: the bundle's top level only builds classes and
 * constants from them) and prints the CPU time of the require. With a second bundle, the two alternate in one run.
 *   npm run build && node --import tsx bench/bundle-load.ts [runs=15] [other dist/extension.js to compare]
 */
import { execFileSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fmt, median } from "./stats";

const ROOT = resolve(__dirname, "..");
const runs = Number(process.argv[2] ?? 15);
const bundles = [join(ROOT, "dist", "extension.js"), ...(process.argv[3] ? [resolve(process.argv[3])] : [])];

// The API's top-level names, from the pinned typings (classes, enums, namespaces, functions, constants).
const names = [
  ...readFileSync(join(ROOT, "node_modules", "@types", "vscode", "index.d.ts"), "utf8").matchAll(
    /^\s*export (?:class|enum|namespace|const|function|let) (\w+)/gm,
  ),
].map((m) => m[1]!);

const child = `
const Module = require("node:module");
const stub = () => new Proxy(class {}, { get: (t, p) => (p in t ? t[p] : stub()) });
const api = Object.fromEntries(${JSON.stringify(names)}.map((n) => [n, stub()]));
const load = Module._load;
Module._load = function (request, ...rest) { return request === "vscode" ? api : load.call(this, request, ...rest); };
const before = process.cpuUsage();
require(process.argv[1]);
const used = process.cpuUsage(before);
process.stdout.write(String((used.user + used.system) / 1000));
`;

function sample(bundle: string): number {
  return Number(execFileSync(process.execPath, ["-e", child, bundle], { encoding: "utf8" }));
}

const samples = bundles.map(() => [] as number[]);
for (let r = 0; r < runs; r++) bundles.forEach((b, i) => samples[i]!.push(sample(b)));
console.log(`require() of the extension's bundle, CPU ms, ${runs} fresh processes each (median, min–max):`);
bundles.forEach((b, i) => {
  const s = samples[i]!;
  console.log(
    `  ${b} (${(statSync(b).size / 1e6).toFixed(2)} MB): ${fmt(median(s))} (${fmt(Math.min(...s))}–${fmt(Math.max(...s))})`,
  );
});
if (bundles.length === 2) console.log(`  ratio: ${(median(samples[0]!) / median(samples[1]!)).toFixed(2)}×`);
