import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { test } from "node:test";

const ROOT = resolve(__dirname, "..", "..");

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "node_modules" ? [] : sources(path);
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Every module specifier a file imports, re-exports, requires or imports dynamically. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const patterns = [/\b(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']/g, /\bimport\s*["']([^"']+)["']/g, /\b(?:require|import)\s*\(\s*["']([^"']+)["']\s*\)/g];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) found.push(m[1]!);
  return found;
}

test("core/ never imports vscode (nor reaches into extension/, webview/ or cli/)", () => {
  const bad: string[] = [];
  const files = sources(join(ROOT, "core"));
  assert.ok(files.length > 50);
  for (const file of files) {
    for (const spec of specifiers(file)) {
      const target = spec.startsWith(".") ? relative(ROOT, resolve(dirname(file), spec)) : "";
      if (spec === "vscode" || spec.startsWith("vscode/") || /^(extension|webview|cli)(\/|\\|$)/.test(target)) bad.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("webview/ imports only core/protocol of the project (and no vscode or Node module)", () => {
  const bad: string[] = [];
  const node = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
  for (const file of sources(join(ROOT, "webview"))) {
    for (const spec of specifiers(file)) {
      if (!spec.startsWith(".")) {
        if (spec === "vscode" || node.has(spec) || spec.startsWith("node:")) bad.push(`${relative(ROOT, file)} imports ${spec}`);
        continue;
      }
      const target = relative(ROOT, resolve(dirname(file), spec)).split(sep).join("/");
      // A library reached by path (the zod alias) is not project code.
      if (target.startsWith("node_modules/")) continue;
      if (!target.startsWith("webview/") && target !== "core/protocol" && !target.startsWith("core/protocol/")) bad.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

test("the checks see a violation (self-test of the import scanner)", () => {
  const sample = join(__dirname, "layers.test.ts");
  assert.ok(specifiers(sample).includes("node:assert/strict"));
});
