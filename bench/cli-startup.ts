// Whole-process start-up of the built CLI (dist/cli.js) against node's own start, in the
// same run: `--help`, and `sessions list --json` over a generated workspace of 10,000
// sessions. Prints medians and peak RSS (from /usr/bin/time when present). A second build's
// cli.js (e.g. main's) is measured in the same run, interleaved, for a before/after ratio, and so
// is the floor of any directory-and-meta.json list (FLOOR below).
//   npm run build && node --import tsx bench/cli-startup.ts [sessions] [other/dist/cli.js]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Sessions } from "../core/storage";
import { encodeId } from "../core/storage/id-codec";
import { fmt, median } from "./stats";

const SESSIONS = Number(process.argv[2] ?? 10_000);
const RUNS = 15;
const cli = join(__dirname, "..", "dist", "cli.js");
const other = process.argv[3];
if (!existsSync(cli) || (other && !existsSync(other))) throw new Error("build first: npm run build");
const root = realpathSync(mkdtempSync(join(tmpdir(), "downcity-startup-")));
// One session written by the real store, then its folder copied with each id swapped in.
async function seed(): Promise<void> {
  const sessions = new Sessions({ root });
  const template = sessions.create({ agentId: "code", id: "session-template" });
  template.append("user/message", { content: [{ type: "text", text: "Explain the build." }] }, { surface: "append" });
  template.append(
    "assistant/message",
    { content: [{ type: "text", text: "It uses esbuild." }] },
    { surface: "append" },
  );
  await sessions.close();
  const area = join(root, ".downcity", "agents", "code", "sessions");
  const from = join(area, encodeId("session-template"));
  const meta = readFileSync(join(from, "meta.json"), "utf8");
  const log = readFileSync(join(from, "messages", "active.jsonl"));
  rmSync(from, { recursive: true });
  for (let i = 0; i < SESSIONS; i++) {
    const id = `session-${String(i).padStart(8, "0")}`;
    const dir = join(area, encodeId(id));
    mkdirSync(join(dir, "messages"), { recursive: true });
    writeFileSync(join(dir, "meta.json"), meta.replace('"session-template"', JSON.stringify(id)));
    writeFileSync(join(dir, "messages", "active.jsonl"), log);
  }
}

/**
 * The floor of DESIGN §5's list, as a whole process: readdir, then per session one no-follow
 * open + read + close of meta.json and a JSON.parse, then one JSON.stringify. No checks, no
 * CLI: what any list of directories and meta.json files costs on this machine.
 */
const FLOOR = `const fs=require("fs"),area=process.argv[1],b=Buffer.alloc(16384),out=[];
for(const e of fs.readdirSync(area,{withFileTypes:true})){if(!e.isDirectory())continue;
const fd=fs.openSync(area+"/"+e.name+"/meta.json",fs.constants.O_RDONLY|fs.constants.O_NOFOLLOW);
const n=fs.readSync(fd,b,0,b.length,0);fs.closeSync(fd);out.push(JSON.parse(b.toString("utf8",0,n)));}
process.stdout.write(JSON.stringify(out));`;

const hasTime = existsSync("/usr/bin/time");
type Figure = { ms: number; rssMiB: number };
/** Each command once per round, rounds interleaved, so load changes hit every command alike. */
function measure(commands: string[][]): Figure[] {
  const ms = commands.map(() => [] as number[]);
  const rss = commands.map(() => 0);
  for (let i = 0; i < RUNS; i++) {
    commands.forEach((args, c) => {
      const start = process.hrtime.bigint();
      const r = hasTime
        ? spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, ...args], { encoding: "utf8", maxBuffer: 1 << 28 })
        : spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 28 });
      ms[c]!.push(Number(process.hrtime.bigint() - start) / 1e6);
      if (r.status !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
      if (hasTime) rss[c] = Math.max(rss[c]!, Number(r.stderr.trim().split("\n").at(-1)) / 1024);
    });
  }
  return commands.map((_, c) => ({ ms: median(ms[c]!), rssMiB: rss[c]! }));
}

async function main(): Promise<void> {
  await seed();
  const builds = other
    ? [
        ["", cli],
        [" (other build)", other],
      ]
    : [["", cli]];
  const rows: [string, string[]][] = [
    ["node -e 0", ["-e", "0"]],
    [
      `floor: readdir + open/read/close + JSON.parse per meta.json (${SESSIONS.toLocaleString("en-US")})`,
      ["-e", FLOOR, join(root, ".downcity", "agents", "code", "sessions")],
    ],
  ];
  for (const [tag, file] of builds) {
    rows.push([`downcity --help${tag}`, [file!, "--help"]]);
    rows.push([
      `downcity sessions list --json (${SESSIONS.toLocaleString("en-US")} sessions)${tag}`,
      [file!, "sessions", "list", "--json", "--cwd", root],
    ]);
    const listed = JSON.parse(
      execFileSync(process.execPath, [file!, "sessions", "list", "--json", "--cwd", root], {
        encoding: "utf8",
        maxBuffer: 1 << 28,
      }),
    ).length;
    if (listed !== SESSIONS) throw new Error(`${file}: listed ${listed} of ${SESSIONS}`);
  }
  const figures = measure(rows.map(([, args]) => args));
  const node = figures[0]!;
  console.log(`## CLI start-up (whole process, median of ${RUNS}, interleaved)\n`);
  console.log("| command | time | × node -e 0 | peak RSS |\n|---|---|---|---|");
  rows.forEach(([name], i) => {
    const m = figures[i]!;
    console.log(
      `| ${name} | ${fmt(m.ms / 1000, 3)} s | ${fmt(m.ms / node.ms)} | ${hasTime ? `${fmt(m.rssMiB, 0)} MiB` : "n/a"} |`,
    );
  });
  const floor = figures[1]!;
  rows.forEach(([name], i) => {
    if (name.startsWith("downcity sessions list")) console.log(`\n${name} ÷ floor: ${fmt(figures[i]!.ms / floor.ms)}`);
  });
  rmSync(root, { recursive: true, force: true });
}

void main();
