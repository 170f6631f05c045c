import assert from "node:assert/strict";
import { chmodSync, symlinkSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { findOnPath } from "../../core/tools/node/which";
import { makeWorkspace, text, type Workspace } from "./fixtures";

/** A tree with root and nested .gitignore files, a re-include, .git/ and .downcity/. */
async function seed(ws: Workspace) {
  await ws.write(".gitignore", "*.log\nbuild/\n/top-only.txt\n");
  await ws.write("top-only.txt", "needle top\n");
  await ws.write("app.log", "needle log\n");
  await ws.write("build/out.js", "needle build\n");
  await ws.write("src/main.ts", "const needle = 1;\nexport {};\n");
  await ws.write("src/util.ts", "// NEEDLE upper\n");
  await ws.write("src/top-only.txt", "needle nested same name\n");
  await ws.write("src/.gitignore", "generated/\n!keep.log\n");
  await ws.write("src/keep.log", "needle kept log\n");
  await ws.write("src/drop.log", "needle dropped log\n");
  await ws.write("src/generated/g.ts", "needle generated\n");
  await ws.write("src/deep/.gitignore", "*.tmp.ts\n");
  await ws.write("src/deep/a.ts", "needle deep\n");
  await ws.write("src/deep/b.tmp.ts", "needle tmp\n");
  await ws.write("other/generated/h.ts", "needle other generated\n");
  await ws.write(".github/ci.yml", "needle hidden\n");
  await ws.write(".git/config", "needle in git\n");
  await ws.write(".git/info/exclude", "excluded-by-info.txt\n");
  await ws.write("excluded-by-info.txt", "needle info exclude\n");
  await ws.write(".downcity/agents/a/meta.json", '{"needle":1}\n');
  await ws.write("bin.dat", Buffer.from("needle\0binary"));
}

const VISIBLE = [
  ".github/ci.yml",
  ".gitignore",
  "bin.dat",
  "other/generated/h.ts",
  "src/.gitignore",
  "src/deep/.gitignore",
  "src/deep/a.ts",
  "src/keep.log",
  "src/main.ts",
  "src/top-only.txt",
  "src/util.ts",
];

describe("glob, grep and list_dir", () => {
  let ws: Workspace;
  before(async () => {
    ws = makeWorkspace({ ripgrep: false });
    await seed(ws);
  });
  after(() => ws.cleanup());

  it("glob honours root and nested .gitignore files, re-includes, .git/info/exclude; skips .git and .downcity", async () => {
    const out = await ws.run("glob", { pattern: "**/*" });
    assert.deepEqual(text(out).split("\n").sort(), [...VISIBLE].sort());
  });

  it("glob matches relative to path and prints workspace-relative paths", async () => {
    assert.equal(text(await ws.run("glob", { pattern: "*.ts", path: "src" })), "src/main.ts\nsrc/util.ts");
    assert.equal(text(await ws.run("glob", { pattern: "deep/**/*.ts", path: "src" })), "src/deep/a.ts");
    assert.equal(text(await ws.run("glob", { pattern: "src/main.ts" })), "src/main.ts");
    assert.equal(text(await ws.run("glob", { pattern: "**/{main,a}.ts" })), "src/deep/a.ts\nsrc/main.ts");
    assert.match(text(await ws.run("glob", { pattern: "*.rs" })), /no files match \*\.rs/);
  });

  it("glob refuses .. and absolute patterns", async () => {
    const out = await ws.run("glob", { pattern: "../**/*" });
    assert.equal(out.isError, true);
    assert.match(text(out), /may not use '\.\.'/);
  });

  it("grep (JS scan) honours nested .gitignore, skips binary, .git and .downcity", async () => {
    const out = await ws.run("grep", { pattern: "needle" });
    const files = [
      ...new Set(
        text(out)
          .split("\n")
          .map((l) => l.split(":")[0]),
      ),
    ].sort();
    assert.deepEqual(files, [
      ".github/ci.yml",
      "other/generated/h.ts",
      "src/deep/a.ts",
      "src/keep.log",
      "src/main.ts",
      "src/top-only.txt",
    ]);
    assert.match(text(out), /^src\/main\.ts:1:const needle = 1;$/m);
  });

  it("grep supports include, ignoreCase, fixedStrings and a single file path", async () => {
    assert.equal(
      text(await ws.run("grep", { pattern: "needle", include: "*.ts", path: "src" })),
      "src/main.ts:1:const needle = 1;\nsrc/deep/a.ts:1:needle deep",
    );
    assert.equal(
      text(await ws.run("grep", { pattern: "needle upper", ignoreCase: true, path: "src" })),
      "src/util.ts:1:// NEEDLE upper",
    );
    assert.equal(
      text(await ws.run("grep", { pattern: "needle = 1;", fixedStrings: true })),
      "src/main.ts:1:const needle = 1;",
    );
    assert.equal(text(await ws.run("grep", { pattern: "log", path: "app.log" })), "app.log:1:needle log");
  });

  it("grep reports bad regexes and the result limit", async () => {
    const bad = await ws.run("grep", { pattern: "(" });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /invalid regular expression "\("/);
    const limited = await ws.run("grep", { pattern: "needle", maxResults: 2 });
    assert.equal(limited.truncated, true);
    assert.match(text(limited), /\[stopped after 2 matching lines; there are more/);
    assert.equal(text(limited).split("\n").length, 3);
  });

  it("list_dir shows directories first, symlink targets, and includes ignored and hidden entries", async () => {
    symlinkSync("src/main.ts", path.join(ws.root, "main-link"));
    const t = text(await ws.run("list_dir", {}));
    const lines = t.split("\n");
    assert.match(lines[0]!, /^\.\/ \(6 directories, \d+ files\)$/);
    assert.deepEqual(lines.slice(1, 7), [".downcity/", ".git/", ".github/", "build/", "other/", "src/"]);
    assert.ok(lines.includes("main-link -> src/main.ts"));
    assert.ok(lines.includes("app.log"));
    const file = await ws.run("list_dir", { path: "src/main.ts" });
    assert.match(text(file), /is a file, not a directory/);
  });
});

describe("grep through ripgrep", () => {
  it("passes the sandbox rules to rg and returns its lines (scripted rg)", async () => {
    const ws = makeWorkspace();
    try {
      const fake = path.join(ws.base, "fake-rg");
      const argsFile = path.join(ws.base, "rg-args");
      writeFileSync(
        fake,
        `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\npwd >> '${argsFile}'\necho 'src/a.ts:3:needle one'\necho 'src/b.ts:7:needle two'\necho 'src/c.ts:9:needle three'\n`,
      );
      chmodSync(fake, 0o755);
      await ws.write("src/a.ts", "x\n");
      const tools = new (await import("../../core/tools")).ToolRegistry(
        (await import("../../core/tools/node")).createNodeTools({ ripgrep: fake }),
      );
      const out = await tools.run("grep", { pattern: "needle", path: "src", include: "*.ts", maxResults: 2 }, ws.ctx);
      assert.equal(
        text(out),
        "src/a.ts:3:needle one\nsrc/b.ts:7:needle two\n[stopped after 2 matching lines; there are more. Narrow the pattern, path or include]",
      );
      const args = (await import("node:fs")).readFileSync(argsFile, "utf8").split("\n");
      for (const flag of [
        "--no-require-git",
        "--hidden",
        "--iglob=!.git",
        "--iglob=!.downcity",
        "--glob=*.ts",
        "--no-config",
      ]) {
        assert.ok(args.includes(flag), `rg got ${flag}`);
      }
      assert.deepEqual(args.slice(args.indexOf("--regexp"), args.indexOf("--regexp") + 4), [
        "--regexp",
        "needle",
        "--",
        "src",
      ]);
      assert.ok(args.includes(ws.root), "rg runs from the workspace root");
    } finally {
      ws.cleanup();
    }
  });

  const rg = findOnPath("rg");
  it("real ripgrep gives the same files as the JS scan", { skip: rg ? false : "rg is not on PATH" }, async () => {
    const js = makeWorkspace({ ripgrep: false });
    try {
      await seed(js);
      const jsOut = text(await js.run("grep", { pattern: "needle" }))
        .split("\n")
        .sort();
      const rgTools = new (await import("../../core/tools")).ToolRegistry(
        (await import("../../core/tools/node")).createNodeTools({ ripgrep: rg! }),
      );
      const rgOut = text(await rgTools.run("grep", { pattern: "needle" }, js.ctx))
        .split("\n")
        .sort();
      assert.deepEqual(rgOut, jsOut);
    } finally {
      js.cleanup();
    }
  });
});
