import assert from "node:assert/strict";
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve, sep } from "node:path";
import { test } from "node:test";

const ROOT = resolve(__dirname, "..", "..");

function sources(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    // Not node_modules nor dot folders (test/.tmp holds installed copies of the tree and links back into it).
    if (lstatSync(path).isDirectory()) return name === "node_modules" || name.startsWith(".") ? [] : sources(path);
    return /\.(ts|tsx|mts|cts|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Every module specifier a file imports, re-exports, requires or imports dynamically. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\b(?:require|import)\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
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
      if (spec === "vscode" || spec.startsWith("vscode/") || /^(extension|webview|cli)(\/|\\|$)/.test(target))
        bad.push(`${relative(ROOT, file)} imports ${spec}`);
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
        if (spec === "vscode" || node.has(spec) || spec.startsWith("node:"))
          bad.push(`${relative(ROOT, file)} imports ${spec}`);
        continue;
      }
      const target = relative(ROOT, resolve(dirname(file), spec))
        .split(sep)
        .join("/");
      // A library reached by path (the zod alias) is not project code.
      if (target.startsWith("node_modules/")) continue;
      if (!target.startsWith("webview/") && target !== "core/protocol" && !target.startsWith("core/protocol/"))
        bad.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  assert.deepEqual(bad, []);
});

/** A project file's import, as a repository path (`core/storage/list`), or undefined for a package. */
function target(file: string, spec: string): string | undefined {
  if (!spec.startsWith(".")) return undefined;
  return relative(ROOT, resolve(dirname(file), spec))
    .split(sep)
    .join("/");
}

/**
 * Hosts go through one door (issue 22): of core, `extension/` and `cli/` import only `core/runtime` (a folder's
 * runtime and what hosts need without one), `core/protocol` (the shapes) and `core/tools` (the tool contract the
 * editor-backed tools implement, and the Node tools the CLI hands its runtime). The exceptions, each with its reason:
 */
const HOST_DOORS = ["core/runtime", "core/protocol", "core/tools"];
const HOST_EXCEPTIONS: Record<string, { imports: string[]; why: string }> = {
  "cli/commands/sessions.ts": {
    imports: ["core/storage/layout", "core/storage/list/list", "core/storage/context"],
    why: "`sessions list` is the fast list path: it runs from cli-sessions.js alone, meta.json checked by hand without zod or the store (test/cli/list-loads-no-zod.test.ts, bench/cli-startup.ts)",
  },
  "cli/workspace.ts": {
    imports: ["core/storage"],
    why: "`sessions show|rename|fork|archive|delete|export` open the store alone: their bundle (cli-sessions-manage.js) holds no agent or provider SDK",
  },
  "cli/commands/sessions-manage.ts": {
    imports: ["core/storage"],
    why: "the same store-only commands (the `Sessions` type they drive)",
  },
};

test("extension/ and cli/ reach core only through core/runtime, core/protocol and core/tools (exceptions stated)", () => {
  const bad: string[] = [];
  const files = [...sources(join(ROOT, "extension")), ...sources(join(ROOT, "cli"))];
  assert.ok(files.length > 40);
  for (const file of files) {
    const rel = relative(ROOT, file).split(sep).join("/");
    for (const spec of specifiers(file)) {
      const to = target(file, spec);
      if (!to?.startsWith("core/") && to !== "core") continue;
      if (HOST_DOORS.some((door) => to === door || to.startsWith(`${door}/`))) continue;
      if (HOST_EXCEPTIONS[rel]?.imports.includes(to)) continue;
      bad.push(`${rel} imports ${spec}`);
    }
  }
  assert.deepEqual(
    bad,
    [],
    "add what the host needs to core/runtime's API (core/runtime/host.ts for what needs no folder)",
  );
  for (const [file, { why }] of Object.entries(HOST_EXCEPTIONS)) {
    assert.ok(existsSync(join(ROOT, file)), `${file}: an exception for a file that is gone`);
    assert.ok(why.length > 20);
  }
});

/**
 * A folder's runtime is made in one place (issue 22): core/runtime/create.ts's createWorkspaceRuntime, which the
 * extension, the CLI's commands, the benches, the test harness and the tests all call, so they run the same thing.
 */
const RUNTIME_MAKER = "core/runtime/create.ts";
test("the workspace runtime is constructed in core/runtime/create.ts alone", () => {
  const makers = ["core", "extension", "cli", "webview", "test", "bench", "scripts"]
    .flatMap((d) => sources(join(ROOT, d)))
    .map((file) => relative(ROOT, file).split(sep).join("/"))
    .filter((rel) => /\bnew\s+WorkspaceRuntime\s*\(/.test(readFileSync(join(ROOT, rel), "utf8")));
  assert.deepEqual(makers, [RUNTIME_MAKER], "call createWorkspaceRuntime (core/runtime) instead");
});

/**
 * One encoding of a session's and a tool call's map key (issue 22): `sessionKey` and `callKey` in core/protocol/refs.ts.
 * A key built by hand elsewhere (a JSON array or a NUL-joined string holding a session or call id) drifts from them: the
 * card's bound, the approvals and the proposals once each had their own.
 */
const KEY_HOME = "core/protocol/refs.ts";
const HAND_MADE_KEY = [
  /JSON\.stringify\(\s*\[[^\]]*\b(?:sessionKey\(|sessionId\b|toolCallId\b)/,
  /`[^`]*\$\{[^}]*\b(?:sessionId|toolCallId)\b[^}]*\}\\0|`[^`]*\\0\$\{[^}]*\b(?:sessionId|toolCallId)\b/,
];
const handMadeKeys = (text: string): string[] =>
  text.split("\n").filter((line) => HAND_MADE_KEY.some((pattern) => pattern.test(line)));
test("session and call keys are encoded in core/protocol/refs.ts alone", () => {
  const bad: string[] = [];
  for (const file of ["core", "extension", "cli", "webview"].flatMap((d) => sources(join(ROOT, d)))) {
    const rel = relative(ROOT, file).split(sep).join("/");
    if (rel === KEY_HOME) continue;
    for (const line of handMadeKeys(readFileSync(file, "utf8"))) bad.push(`${rel}: ${line.trim()}`);
  }
  assert.deepEqual(bad, [], "use sessionKey(ref[, folderKey]) or callKey(ref, toolCallId[, folderKey])");
  // The scanner sees the forms it forbids (each once written in product code) and passes a key of something else.
  const forms = [
    "const key = JSON.stringify([sessionKey(ref, ref.folderKey), toolCallId]);",
    "const id = JSON.stringify([agentId, sessionId]);",
    "const id = `${ref.agentId}\\0${ref.sessionId}`;",
  ];
  assert.deepEqual(handMadeKeys(forms.join("\n")), forms);
  assert.deepEqual(handMadeKeys('JSON.stringify(["date", agentId, group])'), []);
});

/**
 * extension/ in floors (issue 22): each folder imports only the floors below it, so no two folders point at each
 * other. Ground floor first; `extension/activate.ts` (the top, at the folder's root) wires them all.
 */
const FLOORS = [
  "extension/approval", // one open decision per tool call, answered from wherever it is shown
  "extension/config", // settings, SecretStorage keys, provider profiles, files.exclude
  "extension/mcp", // MCP servers per folder (their tools reach the runtime through a hook)
  "extension/folders", // the per-folder registry: one runtime per workspace folder, the .gitignore offer
  "extension/tools", // editor-backed tools and their approver
  "extension/sessions", // the Sessions tree
  "extension/commands", // palette and tree commands, model commands, the failure reporter
  "extension/status", // the status bar's model and context meter
  "extension/restore", // Restore to Here / Undo Restore
  "extension/search", // Search Sessions…
  "extension/mentions", // @-mentions from the editor
  "extension/chat", // the chat's host side (controller, RPC server, views, Add to Chat)
];

test("extension/ is in floors: a folder imports only the floors below it", () => {
  const bad: string[] = [];
  const folders = readdirSync(join(ROOT, "extension")).filter((n) =>
    statSync(join(ROOT, "extension", n)).isDirectory(),
  );
  for (const name of folders)
    if (!FLOORS.includes(`extension/${name}`)) bad.push(`extension/${name} has no floor: add it to FLOORS`);
  for (const [level, floor] of FLOORS.entries()) {
    const below = FLOORS.slice(0, level);
    for (const file of sources(join(ROOT, floor))) {
      for (const spec of specifiers(file)) {
        const to = target(file, spec);
        if (!to?.startsWith("extension/") || to.startsWith(`${floor}/`)) continue;
        if (!below.some((b) => to.startsWith(`${b}/`))) bad.push(`${relative(ROOT, file)} imports ${spec}`);
      }
    }
  }
  assert.deepEqual(bad, []);
});

/**
 * What test/, bench/ and scripts/ share has one home, test/support/ (the loopback provider, fakes, temp folders, the CLI
 * runner, the host tests' workspace, the storage generators and harnesses, the webview harness, and workbench/: the
 * code-server + Chromium harness the UI tests, the host benches, `npm start` and the screenshots drive). Imports
 * point one way, into that home: test/ imports nothing of bench/ or scripts/; bench/ and scripts/ take of test/ only
 * test/support/ and nothing of each other; test/support/ imports no other test/ folder. (Inside test/, a suite may
 * still use another suite's helpers, e.g. test/agent/harness.ts, without a cycle between folders.) bench/host/ (the
 * real-VS-Code benches: drivers and payloads) stands on bench/'s trees and stats, never the reverse.
 */
const SHARED_HOME = "test/support/";
const TOP_RULES: { from: string; forbidden: (to: string, from: string) => boolean; rule: string }[] = [
  {
    from: "test",
    forbidden: (to) => /^(bench|scripts)\//.test(to),
    rule: "test/ imports nothing of bench/ or scripts/",
  },
  {
    from: "bench",
    forbidden: (to) => to.startsWith("scripts/") || (to.startsWith("test/") && !to.startsWith(SHARED_HOME)),
    rule: "bench/ takes of test/ only test/support/, nothing of scripts/",
  },
  {
    from: "bench",
    forbidden: (to, from) => to.startsWith("bench/host/") && !from.startsWith("bench/host/"),
    rule: "bench/host/ imports bench/, bench/ nothing of bench/host/",
  },
  {
    from: "scripts",
    forbidden: (to) => to.startsWith("bench/") || (to.startsWith("test/") && !to.startsWith(SHARED_HOME)),
    rule: "scripts/ takes of test/ only test/support/, nothing of bench/",
  },
  {
    from: "test/support",
    forbidden: (to) => to.startsWith("test/") && !to.startsWith(SHARED_HOME),
    rule: "test/support/ imports no other test/ folder",
  },
];

/** The import-direction violations among test/, bench/ and scripts/ of the files under `dirs` (repository paths). */
function sharedHomeViolations(dirs: string[]): string[] {
  const bad: string[] = [];
  for (const dir of dirs) {
    for (const file of sources(join(ROOT, dir))) {
      const rel = relative(ROOT, file).split(sep).join("/");
      for (const { from, forbidden, rule } of TOP_RULES) {
        if (rel !== from && !rel.startsWith(`${from}/`)) continue;
        for (const spec of specifiers(file)) {
          const to = target(file, spec);
          if (to !== undefined && forbidden(to, rel)) bad.push(`${rel} imports ${spec} (${rule})`);
        }
      }
    }
  }
  return bad;
}

test("test/, bench/ and scripts/ share helpers through test/support/ alone, imports pointing one way", () => {
  assert.ok(sources(join(ROOT, "test/support/workbench")).length >= 5, "the workbench harness lives in test/support");
  assert.deepEqual(sharedHomeViolations(["test", "bench", "scripts"]), []);
});

/** The names a file imports or re-exports by name, with the repository path each comes from. */
function namedImports(file: string): { names: string[]; to: string }[] {
  const text = readFileSync(file, "utf8");
  const found: { names: string[]; to: string }[] = [];
  for (const m of text.matchAll(/\b(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["'](\.[^"']*)["']/g)) {
    const names = m[1]!
      .split(",")
      .map((n) =>
        n
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter(Boolean);
    found.push({ names, to: target(file, m[2]!)! });
  }
  return found;
}

/**
 * A barrel is its folder's public API (issue 22): it names what it exports (no `export *`, which would publish every
 * internal of the files it re-exports; core/protocol alone is all public shapes), and every name it exports is imported
 * by product code outside the folder (core, extension, cli, webview; by the barrel or by the file). Tests and benches of
 * internals import the file itself.
 */
const ALL_PUBLIC = ["core/protocol"];
const BARRELS = readdirSync(join(ROOT, "core"))
  .map((name) => `core/${name}`)
  .filter((dir) => existsSync(join(ROOT, dir, "index.ts")) && !ALL_PUBLIC.includes(dir));
test("every core barrel (but core/protocol) exports only its public API, by name", () => {
  assert.ok(BARRELS.length >= 12, `the barrels found: ${BARRELS.join(", ")}`);
  const product = ["core", "extension", "cli", "webview"].flatMap((d) => sources(join(ROOT, d)));
  const star = product
    .map((file) => relative(ROOT, file).split(sep).join("/"))
    .filter((rel) => !ALL_PUBLIC.some((dir) => rel.startsWith(`${dir}/`)))
    .filter((rel) => /^export\s+(type\s+)?\*/m.test(readFileSync(join(ROOT, rel), "utf8")));
  assert.deepEqual(star, [], "name the exports (export { a, type B } from ...)");
  const unused: string[] = [];
  for (const barrel of BARRELS) {
    const used = new Set<string>();
    for (const file of product) {
      if (relative(ROOT, file).split(sep).join("/").startsWith(`${barrel}/`)) continue;
      for (const { names, to } of namedImports(file))
        if (to === barrel || to.startsWith(`${barrel}/`)) names.forEach((n) => used.add(n));
    }
    for (const name of namedImports(join(ROOT, barrel, "index.ts")).flatMap((e) => e.names))
      if (!used.has(name)) unused.push(`${barrel} exports ${name}`);
  }
  assert.deepEqual(unused, [], "a name only tests use: import it from its file in the test, not from the barrel");
});

/**
 * Small files with one job each (issue 22): a source file over about 350 lines says on its first line why it is
 * one piece (`// Over 350 lines: <reason>`). The test lists them with their reasons.
 */
const LONG_FILE_LINES = 350;
test("source files over 350 lines state why on their first line", (t) => {
  const long: string[] = [];
  const unstated: string[] = [];
  for (const file of ["core", "extension", "webview", "cli"].flatMap((d) => sources(join(ROOT, d)))) {
    const text = readFileSync(file, "utf8");
    const lines = text.split("\n").length - 1;
    if (lines <= LONG_FILE_LINES) continue;
    const rel = relative(ROOT, file).split(sep).join("/");
    const reason = /^\/\/ Over 350 lines: (.{20,})/.exec(text)?.[1];
    if (reason) long.push(`${rel} (${lines}): ${reason}`);
    else unstated.push(`${rel} (${lines} lines)`);
  }
  for (const line of long) t.diagnostic(line);
  assert.deepEqual(unstated, [], "split the file, or give its reason on the first line");
});

/**
 * Tests mirror the source tree (issue 22): a test of extension/<floor>/ lives in test/extension/<floor>/, so each folder
 * of test/extension/ is a floor of extension/, and its root holds only this file (it checks the whole repository).
 */
test("test/extension/ mirrors extension/: one folder per floor, no test loose at its root but this one", () => {
  const here = join(ROOT, "test", "extension");
  const entries = readdirSync(here);
  const folders = entries.filter((n) => statSync(join(here, n)).isDirectory() && !n.startsWith("."));
  assert.deepEqual(
    folders.filter((n) => !FLOORS.includes(`extension/${n}`)),
    [],
    "a test folder named after no floor of extension/",
  );
  assert.deepEqual(
    entries.filter((n) => n.endsWith(".test.ts") && n !== "layers.test.ts"),
    [],
    "move the test into the folder of the floor it tests",
  );
});

test("the checks see a violation (self-test of the import scanner)", () => {
  const sample = join(__dirname, "layers.test.ts");
  assert.ok(specifiers(sample).includes("node:assert/strict"));
});
