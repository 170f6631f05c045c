// The workspace the editor-tools benchmarks search (Node side and inside VS Code): 50,000
// small files, 50 per directory, 10 lines each, one in 1,000 holding the needle.
import { mkdirSync, writeFileSync } from "node:fs";
import * as path from "node:path";

export const TREE_FILES = 50_000;

export function makeTree(root: string, files = TREE_FILES): void {
  const line = "export const value = compute(alpha, beta, gamma); // filler text for the scan\n";
  writeFileSync(path.join(root, ".gitignore"), "*.log\n");
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, "src", `m${Math.floor(i / 500)}`, `d${Math.floor(i / 50)}`);
    if (i % 50 === 0) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${i}.ts`), line.repeat(10) + (i % 1000 === 0 ? "const needle = true;\n" : ""));
  }
}

/** The 2,000-line file the accepted-diff timing edits. */
export const bigFileText = (): string =>
  Array.from({ length: 2_000 }, (_, i) => `export const v${i} = ${i};`).join("\n") + "\n";
