import assert from "node:assert/strict";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import picomatch from "picomatch";
import { gitignoreVerdicts } from "../../core/tools/gitignore";
import { mayOverlap, parseGitignore, pruneGlobs, ruleGlob, type IgnoreFile } from "../../core/tools/gitignore-glob";
import { tempDir } from "../support/temp";

const globsOf = (text: string, base = "") => parseGitignore(text).map((r) => ruleGlob(r, base));
const pruneOf = (...files: [string, string][]) =>
  pruneGlobs(files.map(([base, text]) => ({ base, rules: parseGitignore(text) }))).globs;

describe("gitignore rules as exclude globs", () => {
  it("parses lines as git does: comments, escapes, negation, trailing spaces and slashes", () => {
    const rules = parseGitignore(
      "# comment\n\n  \n\\#hash\n\\!bang\n!keep.log\nbuild/  \n/top\ndoc/frotz\nlib/**/\r\nwith\\ \n",
    );
    assert.deepEqual(
      rules.map(({ negated, dirOnly, anchored, body }) => ({ negated, dirOnly, anchored, body })),
      [
        { negated: false, dirOnly: false, anchored: false, body: "#hash" },
        { negated: false, dirOnly: false, anchored: false, body: "!bang" },
        { negated: true, dirOnly: false, anchored: false, body: "keep.log" },
        { negated: false, dirOnly: true, anchored: false, body: "build" },
        { negated: false, dirOnly: false, anchored: true, body: "top" },
        { negated: false, dirOnly: false, anchored: true, body: "doc/frotz" },
        { negated: false, dirOnly: true, anchored: true, body: "lib/**" },
        { negated: false, dirOnly: false, anchored: false, body: "with\\ " },
      ],
    );
  });

  it("translates anchored and unanchored rules, `**`, brackets, relative to the file's directory", () => {
    const cases: [string, string, string | undefined][] = [
      ["node_modules/", "", "**/node_modules"],
      ["/node_modules", "", "node_modules"],
      ["build", "", "**/build"],
      ["doc/frotz/", "", "doc/frotz"],
      ["/doc/frotz", "", "doc/frotz"],
      ["**/foo", "", "**/foo"],
      ["**/foo/bar", "", "**/foo/bar"],
      ["abc/**", "", "abc/**"],
      ["a/**/b", "", "a/**/b"],
      ["*.log", "", "**/*.log"],
      ["[Bb]in/", "", "**/[Bb]in"],
      ["[^a]x", "", "**/[!a]x"],
      ["[!a]x", "", "**/[!a]x"],
      ["dist/", "packages/app", "packages/app/**/dist"],
      ["/out", "packages/app", "packages/app/out"],
      ["src/*.gen.ts", "packages/app", "packages/app/src/*.gen.ts"],
      // What VS Code's glob cannot say the same way: left to the exact check.
      ["with\\ ", "", undefined],
      ["\\*star", "", undefined],
      ["\\!bang", "", undefined],
      ["{a,b}", "", undefined],
      ["a,b", "", undefined],
      ["a**b", "", undefined],
      ["***", "", undefined],
      ["[[:alpha:]]x", "", undefined],
      ["[abc", "", undefined],
      ["x]", "", undefined],
      ["[]a]", "", undefined],
      ["f(x)", "", undefined],
      // Too long or too many wildcards in one name to compare cheaply (a .gitignore is untrusted).
      [`${"a".repeat(300)}`, "", undefined],
      ["*a*a*a*a*a*a*a*a*a", "", undefined],
      ["*a*a*a*a*a*a*a*a", "", "**/*a*a*a*a*a*a*a*a"],
    ];
    for (const [line, base, glob] of cases) assert.equal(globsOf(line, base)[0], glob, `${line} in '${base}'`);
  });

  it("prunes directory-only rules by what they hold, so a file of that name is kept", () => {
    assert.deepEqual(pruneOf(["", "build/\n/dist\n*.log\n"]), ["**/build/*", "dist", "**/*.log"]);
    const isPruned = picomatch(pruneOf(["", "build/\n"]), { dot: true });
    assert.equal(isPruned("src/build"), false);
    assert.equal(isPruned("src/build/x.ts"), true);
  });

  it("does not prune a rule a later or deeper `!` rule may re-include; an earlier one does not matter", () => {
    assert.deepEqual(pruneOf(["", "*.log\n!keep.log\n"]), []);
    assert.deepEqual(pruneOf(["", "!keep.log\n*.log\n"]), ["**/*.log"]);
    assert.deepEqual(pruneOf(["", "/*\n!/src\n"]), []);
    assert.deepEqual(pruneOf(["", "build/\n"], ["pkg", "!build/\n"]), []);
    // A negation in a sibling's .gitignore applies only there.
    assert.deepEqual(pruneOf(["", "/pkg/build/\n"], ["other", "!build/\n"]), ["pkg/build/*"]);
    // Under an excluded directory nothing is re-included (git's rule): `build/` still prunes.
    assert.deepEqual(pruneOf(["", "build/\n!build/keep/\n"]), ["**/build/*"]);
    assert.deepEqual(
      pruneOf(["", "node_modules/\n!*.md\n"]),
      ["**/node_modules/*"].filter(() => !mayOverlap("**/*.md", "**/node_modules")),
    );
    // A negation the translation cannot read may match anything below its directory.
    assert.deepEqual(pruneOf(["", "dist/\n"], ["a", "!f(x)\n"]), []);
    assert.deepEqual(pruneOf(["a", "dist/\n"], ["", "!f(x)\n"]), ["a/**/dist/*"]);
  });

  it("tells when two globs may match one path", () => {
    const yes: [string, string][] = [
      ["**/*.log", "**/keep.log"],
      ["*", "src"],
      ["**/build", "pkg/**/build"],
      ["a/**/b", "a/b"],
      ["**", "x/y/z"],
      ["a*", "*b"],
      ["[bc]uild", "build"],
    ];
    const no: [string, string][] = [
      ["**/build/keep", "**/build"],
      ["src", "dist"],
      ["a/b", "a/b/c"],
      ["*.log", "*.ts"],
      ["pre*", "post*"],
      ["[bc]uild", "guild"],
    ];
    for (const [a, b] of yes) assert.equal(mayOverlap(a, b) && mayOverlap(b, a), true, `${a} ~ ${b}`);
    for (const [a, b] of no) assert.equal(mayOverlap(a, b) || mayOverlap(b, a), false, `${a} !~ ${b}`);
  });

  it("never prunes what the `ignore` package keeps, over generated trees and rule sets", (t) => {
    const root = tempDir(t);
    // Four levels of directories; at each, files and a *file* named `build` (in build.d/), which
    // `build/` must keep and `build` must not.
    const allFiles: string[] = [];
    const grow = (dir: string, depth: number) => {
      for (const f of ["x.log", "y.ts", "keep", ".env", "build.d/build"]) {
        const rel = dir === "" ? f : `${dir}/${f}`;
        mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
        writeFileSync(path.join(root, rel), "x");
        allFiles.push(rel);
      }
      if (depth === 4) return;
      for (const d of ["a", "build", "node_modules", "src"]) {
        const rel = dir === "" ? d : `${dir}/${d}`;
        mkdirSync(path.join(root, rel));
        grow(rel, depth + 1);
      }
    };
    grow("", 1);

    const names = ["a", "build", "node_modules", "src", "keep", "*.log", "y.*", ".env", "[bn]*", "*"];
    let seed = Number(process.env.GITIGNORE_FUZZ_SEED ?? 1);
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
    const rule = () => {
      const n = pick(names);
      const shape = pick(["n", "n/", "/n", "/n/", "**/n", "n/**", "a/n", "src/**/n", "**/build/n", "n/*"]);
      return (random() < 0.25 ? "!" : "") + shape.replace("n", n);
    };
    const nestedAt = ["a", "src", "a/src", "build/a"];
    let pruned = 0;
    let ignored = 0;
    for (let round = 0; round < Number(process.env.GITIGNORE_FUZZ_ROUNDS ?? 150); round++) {
      const texts = new Map<string, string>();
      texts.set("", Array.from({ length: 1 + Math.floor(random() * 4) }, rule).join("\n") + "\n");
      for (const dir of nestedAt)
        if (random() < 0.4)
          texts.set(dir, Array.from({ length: 1 + Math.floor(random() * 3) }, rule).join("\n") + "\n");
      for (const dir of ["", ...nestedAt]) rmSync(path.join(root, dir, ".gitignore"), { force: true });
      for (const [dir, text] of texts) writeFileSync(path.join(root, dir, ".gitignore"), text);
      const verdicts = gitignoreVerdicts(root);
      // The .gitignore files the editor would find: those not inside an ignored directory, parents first.
      const ignoreFiles: IgnoreFile[] = [...texts.entries()]
        .filter(([dir]) => !verdicts.dir(dir))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([base, text]) => ({ base, rules: parseGitignore(text) }));
      const globs = pruneGlobs(ignoreFiles).globs;
      const match = globs.length > 0 ? picomatch(globs, { dot: true }) : () => false;
      for (const file of [
        ...allFiles,
        ...[...texts.keys()].map((d) => (d === "" ? ".gitignore" : `${d}/.gitignore`)),
      ]) {
        const parts = file.split("/");
        // As ripgrep does: a directory the exclude matches is not entered.
        const hit = parts.some((_, i) => match(parts.slice(0, i + 1).join("/")));
        const isIgnored = verdicts.file(file);
        if (hit)
          assert.equal(
            isIgnored,
            true,
            `pruned but kept by git: ${file}\n${[...texts].map(([d, x]) => `${d || "."}/.gitignore:\n${x}`).join("")}globs: ${globs.join(" ")}`,
          );
        if (isIgnored) ignored++;
        if (hit) pruned++;
      }
    }
    // Safe is not enough: most of what is ignored is pruned before the search.
    assert.ok(pruned / ignored > 0.5, `pruned ${pruned} of ${ignored} ignored files`);
  });
});
