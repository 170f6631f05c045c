// The built extension starts the Sessions tree's first pages on a worker thread before it evaluates the rest of its
// bundle (extension/main.ts; issue 20). This test loads dist/extension.js in a fresh `node` with a stand-in `vscode`
// (one workspace folder), as the extension host would, and reads what the bundle had required when the worker
// started, and what the built worker answered (`npm test` builds first).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { DAY, manySessions } from "../support/many-sessions";
import { tempRoot } from "../support/storage/helpers";
import { PROJECT_ROOT } from "../support/workbench/code-server";
import { vscodeStubSource } from "../support/vscode-stub";

const dist = join(PROJECT_ROOT, "dist");

// The window's one folder; `loads` records every module the bundle requires, in order.
const child = `${vscodeStubSource(
  PROJECT_ROOT,
  `{ workspace: new Proxy({ workspaceFolders: [{ uri: { scheme: "file", fsPath: process.argv[2] } }] },
  { get: (t, p) => (p in t ? t[p] : stub()) }) }`,
)}
const threads = require("node:worker_threads");
const Worker = threads.Worker;
let before;
const timer = setTimeout(() => { process.stdout.write("no answer"); process.exit(1); }, 60000);
threads.Worker = class extends Worker {
  constructor(...args) {
    super(...args);
    before = loads.slice(1); // after the bundle's own path
    this.on("message", (answer) => {
      clearTimeout(timer);
      process.stdout.write(JSON.stringify({ script: args[0], before, after: loads.slice(before.length + 1), answer }));
    });
  }
};
loads.length = 0;
require(process.argv[1]);
`;

test("the bundle starts the first pages' worker before it evaluates the rest; the built worker lists the folder; the VSIX ships it", async (t) => {
  const root = tempRoot(t);
  const now = Date.now() - DAY;
  await manySessions(root, 3, (i) => now - i * 60_000);
  const out = execFileSync(process.execPath, ["-e", child, join(dist, "extension.js"), root], {
    encoding: "utf8",
    env: { ...process.env, DOWNCITY_HOP_TRACE: "" },
  });
  const { script, before, after, answer } = JSON.parse(out) as {
    script: string;
    before: string[];
    after: string[];
    answer: { root: string; real: string; pages: { sessionId: string }[][] };
  };
  assert.equal(script, join(dist, "first-page-worker.js"));
  assert.deepEqual(
    [...new Set(before)].sort(),
    ["node:fs", "node:path", "node:worker_threads", "vscode"],
    "nothing but what starting the worker needs was loaded before it",
  );
  for (const module of ["node:child_process", "node:crypto"])
    assert.ok(after.includes(module), `${module} (the rest of the extension) is loaded after the worker started`);
  assert.equal(answer.real, root);
  assert.deepEqual(
    answer.pages.map((page) => page.map((item) => item.sessionId)),
    [["s0000", "s0001", "s0002"], []],
    "the folder's newest live sessions and its (no) archived ones",
  );
  const shipped = readFileSync(join(PROJECT_ROOT, ".vscodeignore"), "utf8").split("\n");
  assert.ok(shipped.includes("!dist/first-page-worker.js"), ".vscodeignore ships the worker");
});
