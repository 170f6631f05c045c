/**
 * `npm run bench`: runs every quick benchmark, each in its own Node process (so one's heap and timers do not skew
 * the next) at a reduced size, passes its own figures through, and ends with one table: bench, arguments, exit code,
 * wall time. The full-size figures in BENCHMARKS.md come from running each bench alone with its stated command.
 *
 * Left out, for their size or what they need: `search` (a generated corpus of 10,000 sessions in BENCH_SEARCH_DIR),
 * `storage-soak` (crash trials in child processes, minutes), `webview` (Chromium and a build), `cli-startup` (a build
 * and 10,000 sessions), `bundle-load` (a build), and the real-VS-Code ones (`host/editor-tools-host`, `host/ignored-trees-host`, `host/first-figures`:
 * code-server). `BENCH_ONLY=name,name` runs only those.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";

interface Bench {
  name: string;
  args: string[];
  /** The editor benches run the extension's code over the vscode fake. */
  fake?: boolean;
}

const QUICK: Bench[] = [
  { name: "session-core", args: [] },
  { name: "storage-bench", args: [] },
  { name: "llm-throughput", args: [] },
  { name: "tools-search", args: [] },
  { name: "agent-loop", args: ["200"] },
  { name: "storage-fuzz", args: ["500", "1", "2"] },
  { name: "list-damaged", args: ["1000", "5"] },
  { name: "mcp", args: ["50", "2", "2"] },
  { name: "editor-tools", args: [], fake: true },
  { name: "editor-tree", args: [], fake: true },
  { name: "ignored-trees", args: [], fake: true },
  { name: "extension-activation", args: [], fake: true },
];

const ROOT = join(__dirname, "..");

function run(bench: Bench): Promise<{ code: number; ms: number }> {
  const start = process.hrtime.bigint();
  const argv = [
    "--import",
    "tsx",
    ...(bench.fake ? ["--require", "./test/support/vscode-fake/register.cjs"] : []),
    join("bench", `${bench.name}.ts`),
    ...bench.args,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] });
    child.on("close", (code, signal) =>
      resolve({ code: code ?? (signal ? 128 : 1), ms: Number(process.hrtime.bigint() - start) / 1e6 }),
    );
  });
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY?.split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const chosen = only ? QUICK.filter((b) => only.includes(b.name)) : QUICK;
  if (only && chosen.length !== only.length)
    throw new Error(
      `BENCH_ONLY names no such quick bench: ${only.filter((n) => !QUICK.some((b) => b.name === n)).join(", ")}`,
    );
  const rows: Array<[string, string, string, string]> = [];
  for (const bench of chosen) {
    console.log(`\n=== bench/${bench.name}.ts ${bench.args.join(" ")}`);
    const { code, ms } = await run(bench);
    rows.push([bench.name, bench.args.join(" ") || "(defaults)", String(code), `${(ms / 1000).toFixed(1)} s`]);
  }
  const header: [string, string, string, string] = ["bench", "arguments", "exit", "wall"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(`\n${line(header)}\n|${widths.map((w) => "-".repeat(w + 2)).join("|")}|\n${rows.map(line).join("\n")}`);
  if (rows.some((r) => r[2] !== "0")) process.exitCode = 1;
}

void main();
