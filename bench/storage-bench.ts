// Storage benchmarks (issue 3). Usage: node --import tsx bench/storage-bench.ts
// Data is generated through the store's own API; each measurement runs in a fresh
// child process (median of RUNS) and reports that process's peak RSS.
import { execFileSync } from "node:child_process";
import { buildSync } from "esbuild";
import { mkdtempSync, rmSync, statSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decompress } from "@mongodb-js/zstd";
import { Sessions, sessionPaths } from "../core/storage";
import { countingFs } from "../test/support/storage/helpers";
import { generateSession } from "../test/support/storage/generate";

const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const now = () => performance.now();

async function measure(kind: string, root: string, arg: string): Promise<void> {
  const t0 = now();
  let extra: Record<string, number> = {};
  if (kind === "baseline") {
    // Same process and imports, no work: the RSS floor of the bundled Node process.
  } else if (kind === "list") {
    const s = new Sessions({ root });
    const items = await s.list();
    extra = { items: items.length };
  } else if (kind === "open") {
    const s = new Sessions({ root });
    const { session } = await s.open({ sessionId: arg });
    extra = { messages: session.deriveMessages().length, resident: s.residentBytes(session) };
    const ms = now() - t0;
    await s.close();
    process.stdout.write(JSON.stringify({ ms, rss: process.resourceUsage().maxRSS / 1024, ...extra }));
    return;
  } else if (kind === "fork") {
    const s = new Sessions({ root });
    await s.fork({ sessionId: arg }, { newId: `fork-${process.pid}` });
  }
  process.stdout.write(JSON.stringify({ ms: now() - t0, rss: process.resourceUsage().maxRSS / 1024, ...extra }));
}

// Measuring children run this file bundled by esbuild, as the product ships (dist/cli.js),
// not through tsx: its on-the-fly compiler would add ~50 MiB and its start-up to every row.
const BUNDLE = join(__dirname, ".out", "storage-bench.cjs");
function bundleSelf(): void {
  buildSync({
    entryPoints: [__filename],
    outfile: BUNDLE,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["@mongodb-js/zstd", "esbuild"],
    logLevel: "warning",
  });
}

function runChild(kind: string, root: string, arg = ""): { ms: number; rss: number; [k: string]: number } {
  const out = execFileSync(process.execPath, [BUNDLE, "measure", kind, root, arg], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  return JSON.parse(out);
}

function series(kind: string, root: string, arg = "") {
  const runs = Array.from({ length: RUNS }, () => runChild(kind, root, arg));
  return { ms: median(runs.map((r) => r.ms)), rss: Math.max(...runs.map((r) => r.rss)), last: runs.at(-1)! };
}

async function makeMany(root: string, sessions: number, events: number, scale: number) {
  const store = new Sessions({ root, batchWindowMs: 10_000 });
  for (let i = 0; i < sessions; i++) {
    const s = store.create({ id: `session-${i}` });
    await generateSession(store, s, events, { scale });
    await store.store.dispose(s);
    await store.persistence.release(s);
  }
  await store.close();
}

async function main() {
  if (process.argv[2] === "measure") return measure(process.argv[3]!, process.argv[4]!, process.argv[5] ?? "");
  bundleSelf();
  const rows: string[] = [];
  const base = mkdtempSync(join(tmpdir(), "downcity-bench-"));
  try {
    const floor = series("baseline", base);
    rows.push(
      `| baseline: Node process with the bundled store loaded, doing nothing | – | ${floor.rss.toFixed(0)} MiB | RSS floor of every row below |`,
    );
    // 1. Lists
    const l1 = join(base, "list-10k");
    let t = now();
    await makeMany(l1, 10_000, 20, 1);
    console.error(`generated 10,000 x 20 in ${((now() - t) / 1000).toFixed(1)} s`);
    const a = series("list", l1);
    const l2 = join(base, "list-1k");
    t = now();
    await makeMany(l2, 1_000, 2_000, 0.05);
    console.error(`generated 1,000 x 2,000 in ${((now() - t) / 1000).toFixed(1)} s`);
    const b = series("list", l2);
    rows.push(
      `| list 10,000 sessions × 20 events | ${(a.ms / 1000).toFixed(3)} s | ${a.rss.toFixed(0)} MiB | ≤ 0.25 s, ≤ 100 MiB |`,
    );
    rows.push(
      `| list 1,000 sessions × 2,000 events | ${(b.ms / 1000).toFixed(3)} s | ${b.rss.toFixed(0)} MiB | per session ${(b.ms / 1000 / (a.ms / 10_000)).toFixed(2)}× the 10k list (≤ 1) |`,
    );

    // 2. Open + model context at 2k / 10k / 50k
    const o = join(base, "open");
    const opens: Record<number, ReturnType<typeof series>> = {};
    {
      const store = new Sessions({ root: o, batchWindowMs: 10_000 });
      for (const n of [2_000, 10_000, 50_000]) {
        const s = store.create({ id: `h${n}` });
        await generateSession(store, s, n);
        await store.store.dispose(s);
        await store.persistence.release(s);
      }
      await store.close();
    }
    for (const n of [2_000, 10_000, 50_000]) opens[n] = series("open", o, `h${n}`);
    for (const n of [2_000, 10_000, 50_000]) {
      const r = opens[n]!;
      rows.push(
        `| open ${n.toLocaleString("en")}-event session + build model context | ${((r.ms * 1000) / 1000).toFixed(1)} ms | ${r.rss.toFixed(0)} MiB | resident ${(r.last.resident! / 1024).toFixed(0)} KiB, ${r.last.messages} messages${n === 50_000 ? `; ratio 50k/2k ${(r.ms / opens[2_000]!.ms).toFixed(2)} (≤ 1.3); target ≤ 150 ms, ≤ 100 MiB` : ""} |`,
      );
    }

    // 3. 1,000 appends then flush
    {
      const fs = countingFs();
      const root = join(base, "appends");
      const store = new Sessions({ root, fs, batchWindowMs: 200 });
      const s = store.create({ id: "w" });
      let recordBytes = 0;
      s.on("event", (e) => (recordBytes += Buffer.byteLength(JSON.stringify(e)) + 1));
      for (let i = 0; i < 1_000; i++)
        s.append(
          "user/message",
          { content: [{ type: "text", text: `message ${i} `.repeat(20) }] },
          { surface: "append" },
        );
      const syncs0 = fs.syncs;
      const t0 = now();
      await store.flush(s);
      const ms = now() - t0;
      const activeBytes = statSync(sessionPaths(root, "default", "w").active).size;
      rows.push(
        `| 1,000 appends then flush | ${ms.toFixed(1)} ms | – | Active bytes ÷ record bytes ${(activeBytes / recordBytes).toFixed(3)} (≤ 1.05); all bytes written incl. meta/lock ÷ record bytes ${(fs.written / recordBytes).toFixed(3)}; fsyncs ${fs.syncs - syncs0} (first publish: lock, Active, 3 dirs, meta) |`,
      );
      const more = fs.syncs;
      const w0 = fs.written;
      recordBytes = 0;
      for (let i = 0; i < 1_000; i++)
        s.append(
          "user/message",
          { content: [{ type: "text", text: `again ${i} `.repeat(20) }] },
          { surface: "append" },
        );
      await store.flush(s);
      const rb = recordBytes;
      rows.push(
        `| 1,000 more appends then flush (steady state) | – | – | bytes written ÷ record bytes ${((fs.written - w0) / rb).toFixed(3)}; fsyncs ${fs.syncs - more} |`,
      );
      await store.close();
    }

    // 4. Fork a 50k-event session
    const f = series("fork", o, "h50000");
    rows.push(
      `| fork a 50,000-event session (${readdirSync(sessionPaths(o, "default", "h50000").segments).length} segments hard-linked) | ${f.ms.toFixed(1)} ms | ${f.rss.toFixed(0)} MiB | ≤ 200 ms |`,
    );

    // 5. Segment compression and decode
    {
      const dir = sessionPaths(o, "default", "h50000").segments;
      const files = readdirSync(dir).sort();
      let plain = 0;
      let packed = 0;
      const times: number[] = [];
      for (const file of files.slice(0, 50)) {
        const data = execFileSync("cat", [join(dir, file)], { maxBuffer: 1 << 26 });
        const t0 = now();
        const out = await decompress(data);
        times.push(now() - t0);
        plain += out.length;
        packed += data.length;
      }
      rows.push(
        `| segment (~130 events, ${(plain / 50 / 1024).toFixed(0)} KiB plain) | decode ${median(times).toFixed(2)} ms | – | compression ratio ${(plain / packed).toFixed(2)}× (zstd level 3) |`,
      );
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  console.log("| measurement | median | peak RSS | notes |\n|---|---|---|---|");
  for (const r of rows) console.log(r);
}
void main();
