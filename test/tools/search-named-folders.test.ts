import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { findOnPath } from "../../core/tools/node/which";
import { makeWorkspace, text, type Workspace } from "./fixtures";

/** An ignored dependency tree, a nested ignored folder, and .git/ and .downcity/ holding the needle too. */
async function seed(ws: Workspace) {
  await ws.write(".gitignore", "node_modules/\n*.log\n");
  await ws.write("src/main.ts", "const needle = 1;\n");
  await ws.write("node_modules/foo/index.js", "var needle = 2;\n");
  await ws.write("node_modules/foo/lib/deep.js", "var needle = 3;\n");
  await ws.write("node_modules/foo/.gitignore", "lib/\n");
  await ws.write("node_modules/bar/index.js", "var needle = 4;\n");
  await ws.write("pkg/.gitignore", "gen/\n");
  await ws.write("pkg/gen/g.ts", "const needle = 5;\n");
  await ws.write(".git/config", "needle in git\n");
  await ws.write(".git/info/refs", "needle in git\n");
  await ws.write(".downcity/agents/a/meta.json", '{"needle":1}\n');
}

const rg = findOnPath("rg");
const engines: [string, Parameters<typeof makeWorkspace>[0], string | false][] = [
  ["JS scan", { ripgrep: false }, false],
  ["ripgrep", rg ? { ripgrep: rg } : { ripgrep: false }, rg ? false : "rg is not on PATH"],
];

for (const [engine, options, skip] of engines) {
  describe(`core glob and grep (${engine}): named folders`, { skip }, () => {
    let ws: Workspace;
    before(async () => {
      ws = makeWorkspace(options);
      await seed(ws);
    });
    after(() => ws.cleanup());

    // ripgrep prints files in the order its threads finish them.
    const files = (out: string) => [...new Set(out.split("\n").map((l) => l.split(":")[0]!))].sort();

    it("grep refuses .git/ and .downcity/ named as the path or include, with a clear error", async () => {
      for (const args of [
        { pattern: "needle", path: ".git" },
        { pattern: "needle", path: ".git/config" },
        { pattern: "needle", path: ".git/info" },
        { pattern: "needle", path: ".GIT" },
        { pattern: "needle", path: ".downcity" },
        { pattern: "needle", path: ".", include: ".git/**" },
      ]) {
        const out = await ws.run("grep", args);
        assert.equal(out.isError, true, `${JSON.stringify(args)}: ${text(out)}`);
        assert.match(
          text(out),
          /grep does not search inside \.(git|GIT|downcity)\/: \.git\/ and \.downcity\/ are never/,
        );
        assert.doesNotMatch(text(out), /needle in git|meta\.json:/);
      }
      // Over the root they are skipped, as before.
      const all = text(await ws.run("grep", { pattern: "needle" }));
      assert.deepEqual(files(all), ["src/main.ts"]);
    });

    it("glob refuses .git/ and .downcity/ named as the path or the pattern's folder", async () => {
      for (const args of [
        { pattern: "**/*", path: ".git" },
        { pattern: ".git/**", path: "." },
        { pattern: ".git/config", path: "." },
        { pattern: "agents/**", path: ".downcity" },
      ]) {
        const out = await ws.run("glob", args);
        assert.equal(out.isError, true, `${JSON.stringify(args)}: ${text(out)}`);
        assert.match(text(out), /glob does not search inside \.(git|downcity)\//);
      }
      assert.doesNotMatch(text(await ws.run("glob", { pattern: "**/*" })), /\.git\/|\.downcity\//);
    });

    it("glob names an ignored folder and finds its files, saying so; unnamed it stays out", async () => {
      assert.equal(
        text(await ws.run("glob", { pattern: "node_modules/foo/**" })),
        [
          "node_modules/foo/.gitignore",
          "node_modules/foo/index.js",
          // Searched whole: the .gitignore inside the named tree does not hide lib/ either.
          "node_modules/foo/lib/deep.js",
          "[searched node_modules/, which .gitignore ignores, because the pattern names it]",
        ].join("\n"),
      );
      assert.equal(
        text(await ws.run("glob", { pattern: "*/index.js", path: "node_modules" })),
        "node_modules/bar/index.js\nnode_modules/foo/index.js\n" +
          "[searched node_modules/, which .gitignore ignores, because the pattern names it]",
      );
      assert.equal(
        text(await ws.run("glob", { pattern: "node_modules/foo/index.js" })),
        "node_modules/foo/index.js\n[searched node_modules/, which .gitignore ignores, because the pattern names it]",
      );
      assert.equal(
        text(await ws.run("glob", { pattern: "gen/*.ts", path: "pkg" })),
        "pkg/gen/g.ts\n[searched pkg/gen/, which .gitignore ignores, because the pattern names it]",
      );
      assert.equal(
        text(await ws.run("glob", { pattern: "node_modules/foo/*.rs" })),
        "no files match node_modules/foo/*.rs in ./\n" +
          "[searched node_modules/, which .gitignore ignores, because the pattern names it]",
      );
      // Not named: the ignored trees stay out, with no note.
      assert.equal(text(await ws.run("glob", { pattern: "**/*.js" })), "no files match **/*.js in ./");
      assert.equal(text(await ws.run("glob", { pattern: "**/*.ts" })), "src/main.ts");
    });

    it("grep with an ignored folder as the path searches it whole and says so", async () => {
      const out = text(await ws.run("grep", { pattern: "needle", path: "node_modules/foo" }));
      assert.deepEqual(
        files(out),
        [
          "node_modules/foo/index.js",
          "node_modules/foo/lib/deep.js",
          "[searched node_modules/, which .gitignore ignores, because it was named]",
        ].sort(),
      );
      assert.match(out, /\n\[searched node_modules\/, which \.gitignore ignores, because it was named\]$/);
      const gen = text(await ws.run("grep", { pattern: "needle", path: "pkg/gen" }));
      assert.equal(
        gen,
        "pkg/gen/g.ts:1:const needle = 5;\n[searched pkg/gen/, which .gitignore ignores, because it was named]",
      );
    });
  });
}
