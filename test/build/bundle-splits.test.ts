// The extension host compiles dist/extension.js at every start before the Sessions tree can draw: the packages it
// needs only later are bundles of their own (esbuild.config.mjs, EXTENSION_SPLITS), required on first use. These
// tests read the built files (`npm test` builds first): a split that stops being one, or one the VSIX leaves out
// (the host would fail at the first model call or regular expression), fails here.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { PROJECT_ROOT } from "../support/workbench/code-server";

const dist = join(PROJECT_ROOT, "dist");
const bundle = () => readFileSync(join(dist, "extension.js"), "utf8");
const splits = ["sdk-openai.js", "sdk-anthropic.js", "re2js.js"];

test("the extension's bundle requires each split by its own file, and the VSIX ships every file it requires", () => {
  const required = [...bundle().matchAll(/require\("\.\/([\w.-]+)"\)/g)].map((m) => m[1]!);
  assert.deepEqual([...new Set(required)].sort(), [...splits].sort());
  const shipped = readFileSync(join(PROJECT_ROOT, ".vscodeignore"), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("!dist/"))
    .map((line) => line.slice("!dist/".length));
  for (const file of required) {
    assert.ok(existsSync(join(dist, file)), `dist/${file} is built`);
    assert.ok(shipped.includes(file), `.vscodeignore ships dist/${file}`);
  }
});

test("the SDKs, re2js and zod's other locales are not compiled with the extension: under half its old 1.95 MB", () => {
  const text = bundle();
  assert.ok(statSync(join(dist, "extension.js")).size < 1_000_000, "dist/extension.js is under 1 MB");
  // Strings of each package's own code (its error classes, its regular-expression engine, a locale's words).
  assert.ok(!text.includes("ANTHROPIC_BASE_URL"), "the Anthropic SDK is not in the bundle");
  assert.ok(!text.includes("OPENAI_BASE_URL"), "the OpenAI SDK is not in the bundle");
  assert.ok(!text.includes("invalid nested repetition operator"), "re2js is not in the bundle");
  assert.ok(!text.includes("Ungültige"), "zod's German locale is not in the bundle");
  assert.ok(text.includes("Invalid input"), "zod's English messages are");
});

test("a split SDK read with require gives the ES module's default export, as the adapters use it", () => {
  for (const file of ["sdk-openai.js", "sdk-anthropic.js"]) {
    const sdk = require(join(dist, file)) as { default?: unknown; APIError?: unknown };
    assert.equal(typeof sdk.default, "function", `${file}: default is the client class`);
    assert.equal(typeof sdk.APIError, "function", `${file}: the error classes the error mapping checks`);
  }
  const re2 = require(join(dist, "re2js.js")) as { RE2JS?: { compile?: unknown } };
  assert.equal(typeof re2.RE2JS?.compile, "function");
});
