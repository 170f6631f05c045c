// The Sessions tree's first rows at N sessions, in process (issue 20): the first page's pass (one lstat per session,
// then the newest meta.json files) on this thread, the same pass on a worker thread (dist/first-page-worker.js, as the
// extension starts it: its wall time includes the worker's start), and the rows remembered from the last window (one
// lstat and one meta.json read per remembered session, extension/sessions/first-rows.ts). Interleaved rounds, medians
// of wall time, of the process's CPU (every thread) and of this thread's busy time (event-loop utilisation: what the
// extension host's thread spends); fs calls counted through the seam (this thread's only). All give the same items.
//   npm run build && node --import tsx bench/first-rows.ts [sessions=10000] [rounds=15]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { performance as perfHooks } from "node:perf_hooks";
import { join } from "node:path";
import { listFirstPagesOffThread } from "../core/runtime/first-pages";
import type { ListFilter, SessionListItem } from "../core/session";
import { createStorageContext } from "../core/storage/context";
import { listStored } from "../core/storage/list/list";
import { manySessions } from "../test/support/many-sessions";
import { PROJECT_ROOT } from "../test/support/workbench/code-server";
import { countingFs } from "./counting-fs";
import { fmt, median, table } from "./stats";

const SESSIONS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 15);
/** The tree's first page of live sessions (extension/sessions/tree.ts FIRST_ROWS). */
const FIRST_ROWS = 51;

async function main() {
  const root = mkdtempSync(join(tmpdir(), "downcity-firstrows-"));
  try {
    const now = Date.now();
    // Session i last active i minutes ago, in a scrambled order of folder names (as in a real store).
    await manySessions(root, SESSIONS, (i) => now - ((i * 7919) % SESSIONS) * 60_000);
    const page = await listStored(createStorageContext({ root }), { verifyLogs: true, limit: FIRST_ROWS });
    const pass: ListFilter = { verifyLogs: true, limit: FIRST_ROWS };
    const worker = join(PROJECT_ROOT, "dist", "first-page-worker.js");
    const onThread = (filter: ListFilter) => (fs: ReturnType<typeof countingFs>["fs"]) =>
      listStored(createStorageContext({ root, fs }), filter);
    const kinds: { name: string; list: (fs: ReturnType<typeof countingFs>["fs"]) => Promise<SessionListItem[]> }[] = [
      { name: "first page's pass (limit 51), this thread", list: onThread(pass) },
      {
        name: "first page's pass (limit 51), a worker thread",
        list: async () =>
          (await listFirstPagesOffThread(worker, [root], [{ ...pass, limit: FIRST_ROWS }]).pages(root)!).pages[0]!,
      },
      {
        name: "remembered rows (51 ids)",
        list: onThread({
          verifyLogs: true,
          sessions: page.map((i) => ({ agentId: i.agentId, sessionId: i.sessionId })),
        }),
      },
    ];
    const wall = kinds.map(() => [] as number[]);
    const cpu = kinds.map(() => [] as number[]);
    const busy = kinds.map(() => [] as number[]);
    const calls: Record<string, number>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const [k, kind] of kinds.entries()) {
        const counted = countingFs();
        const c0 = process.cpuUsage();
        const e0 = perfHooks.eventLoopUtilization();
        const t0 = performance.now();
        const items = await kind.list(counted.fs);
        wall[k]!.push(performance.now() - t0);
        busy[k]!.push(perfHooks.eventLoopUtilization(e0).active);
        const c = process.cpuUsage(c0);
        cpu[k]!.push((c.user + c.system) / 1000);
        if (JSON.stringify(items) !== JSON.stringify(page)) throw new Error(`${kind.name}: not the first page's items`);
        calls[k] = counted.calls;
      }
    }
    console.log(`## the tree's first rows at ${SESSIONS} sessions, median of ${ROUNDS} interleaved rounds\n`);
    table(
      [
        "first rows from",
        "wall",
        "CPU (all threads)",
        "this thread busy",
        "busy × remembered",
        "fs calls (this thread)",
      ],
      kinds.map((kind, k) => [
        kind.name,
        `${fmt(median(wall[k]!), 1)} ms`,
        `${fmt(median(cpu[k]!), 1)} ms`,
        `${fmt(median(busy[k]!), 1)} ms`,
        fmt(median(busy[k]!) / median(busy[2]!), 1),
        JSON.stringify(calls[k]),
      ]),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
void main();
