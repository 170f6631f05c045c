// Issue 25 items 2 and 3 ("context"): what the project's rules cost per request, and the
// @file picker's fuzzy match over a large workspace. Rules: ProjectRules.load over real
// files, cold (first load: every file read) and warm (the stat cache: one lstat per
// candidate, no read), with the files touched spread over 1, 10 and 50 folders; the
// counters say what each load did, the ratio compares cold and warm in the same run.
// Run: node --import tsx bench/context.ts
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fuzzyFilter } from "../core/mentions";
import { ProjectRules } from "../core/rules";
import { fmt, median, table, timeMs, timeMsAsync } from "./stats";

async function main(): Promise<void> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "downcity-bench-context-")));
  try {
    const rows: (string | number)[][] = [];
    for (const folders of [1, 10, 50]) {
      const base = join(root, `f${folders}`);
      const touched: string[] = [];
      mkdirSync(base, { recursive: true });
      writeFileSync(join(base, "AGENTS.md"), "Root rules.\n".repeat(200));
      for (let i = 0; i < folders; i++) {
        const dir = join(base, "packages", `pkg${i}`, "src");
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(base, "packages", `pkg${i}`, "AGENTS.md"), `Package ${i} rules.\n`.repeat(40));
        touched.push(`packages/pkg${i}/src/index.ts`);
      }
      const colds: number[] = [];
      const warms: number[] = [];
      let coldCounters = { lstats: 0, reads: 0 };
      let warmCounters = { lstats: 0, reads: 0 };
      for (let run = 0; run < 15; run++) {
        const rules = new ProjectRules({ root: base, files: () => ["CLAUDE.md", ".clinerules"] });
        colds.push(await timeMsAsync(() => rules.load(touched)));
        coldCounters = { ...rules.counters };
        const before = { ...rules.counters };
        for (let i = 0; i < 10; i++) warms.push(await timeMsAsync(() => rules.load(touched)));
        warmCounters = {
          lstats: (rules.counters.lstats - before.lstats) / 10,
          reads: (rules.counters.reads - before.reads) / 10,
        };
      }
      const cold = median(colds);
      const warm = median(warms);
      rows.push([
        folders,
        folders + 1,
        `${fmt(cold, 3)} ms`,
        `${coldCounters.lstats} / ${coldCounters.reads}`,
        `${fmt(warm, 3)} ms`,
        `${warmCounters.lstats} / ${warmCounters.reads}`,
        `×${fmt(cold / warm, 1)}`,
      ]);
    }
    console.log("Rules: ProjectRules.load (AGENTS.md + CLAUDE.md + .clinerules looked up per folder), medians");
    table(
      [
        "touched folders",
        "rules files",
        "cold load",
        "cold lstats / reads",
        "warm load (cached)",
        "warm lstats / reads",
        "cold ÷ warm",
      ],
      rows,
    );

    const paths: string[] = [];
    for (let i = 0; i < 20_000; i++)
      paths.push(
        `packages/pkg${i % 200}/src/${["components", "lib", "utils", "tests"][i % 4]}/file${i}.${i % 3 ? "ts" : "tsx"}`,
      );
    const queries = ["file1234", "pkg12utils", "f9999", "src"];
    const fuzzy: (string | number)[][] = [];
    for (const q of queries) {
      const times: number[] = [];
      let first = "";
      for (let run = 0; run < 15; run++) times.push(timeMs(() => (first = fuzzyFilter(paths, q, 30)[0] ?? "")));
      fuzzy.push([`\`${q}\``, `${fmt(median(times), 2)} ms`, `\`${first}\``]);
    }
    console.log("\n@file picker: fuzzyFilter over 20,000 paths (the picker's list cap), 30 best, medians of 15");
    table(["query", "time", "best match"], fuzzy);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

void main();
