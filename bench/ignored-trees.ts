// The trees bench/host/ignored-trees-host.ts opens: a 5,000-file source tree, and a large
// ignored dependency tree built beside it (outside the workspace, moved in by the payload).
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";

export const SOURCE_FILES = 5_000;
export const IGNORED_FILES = 100_000;

/** `src/`: 50 files a directory, 1 in 500 holding the needle; `.gitignore` ignores node_modules/ and vendor/. */
export function makeSourceTree(root: string, files = SOURCE_FILES): void {
  writeFileSync(path.join(root, ".gitignore"), "node_modules/\nvendor/\n*.log\n");
  const line = "export const value = compute(alpha, beta, gamma); // filler text for the scan\n";
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, "src", `m${Math.floor(i / 500)}`, `d${Math.floor(i / 50)}`);
    if (i % 50 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i}.ts`), line.repeat(10) + (i % 500 === 0 ? "const needle = true;\n" : ""));
  }
}

/**
 * A dependency tree as npm leaves one: packages of 100 files (JavaScript, `.d.ts` types,
 * package.json), some holding the needle too, so a search that enters it finds more.
 */
export function makeIgnoredTree(root: string, files = IGNORED_FILES): void {
  const line = "module.exports = function helper(a, b) { return a + b; }; // dependency code\n";
  for (let i = 0; i < files; i++) {
    const pkg = path.join(root, `pkg${Math.floor(i / 100)}`);
    const j = i % 100;
    const dir = path.join(pkg, j < 60 ? "lib" : "types");
    if (j === 0) mkdirSync(path.join(pkg, "lib"), { recursive: true });
    if (j === 60) mkdirSync(dir, { recursive: true });
    const name = j === 99 ? path.join(pkg, "package.json") : path.join(dir, j < 60 ? `m${j}.js` : `m${j}.d.ts`);
    writeFileSync(name, line.repeat(5) + (i % 1000 === 0 ? "var needle = 1;\n" : ""));
  }
}
