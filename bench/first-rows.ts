// The Sessions tree's first rows at N sessions, in process (issue 20): the first page's pass (one lstat per session,
// then the newest meta.json files) against the rows remembered from the last window (one lstat and one meta.json read
// per remembered session, extension/sessions/first-rows.ts). Interleaved rounds, medians of wall time and of CPU;
// fs calls counted through the seam. The two give the same items (checked).
//   node --import tsx bench/first-rows.ts [sessions=10000] [rounds=15]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ListFilter } from "../core/session";
import { createStorageContext } from "../core/storage/context";
import { listStored } from "../core/storage/list/list";
import { PAGE_SIZE } from "../extension/sessions/folder-model";
import { manySessions } from "../test/support/many-sessions";
import { countingFs } from "./counting-fs";
import { fmt, median, table } from "./stats";

const SESSIONS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 15);
/** The tree's first page of live sessions: a group's page and one to tell "Show more" (extension/sessions/tree.ts FIRST_ROWS). */
const FIRST_ROWS = PAGE_SIZE + 1;

async function main() {
  const root = mkdtempSync(join(tmpdir(), "downcity-firstrows-"));
  try {
    const now = Date.now();
    // Session i last active i minutes ago, in a scrambled order of folder names (as in a real store).
    await manySessions(root, SESSIONS, (i) => now - ((i * 7919) % SESSIONS) * 60_000);
    const page = await listStored(createStorageContext({ root }), { verifyLogs: true, limit: FIRST_ROWS });
    const kinds: { name: string; filter: ListFilter }[] = [
      { name: `first page's pass (limit ${FIRST_ROWS})`, filter: { verifyLogs: true, limit: FIRST_ROWS } },
      {
        name: `remembered rows (${FIRST_ROWS} ids)`,
        filter: { verifyLogs: true, sessions: page.map((i) => ({ agentId: i.agentId, sessionId: i.sessionId })) },
      },
    ];
    const wall = kinds.map(() => [] as number[]);
    const cpu = kinds.map(() => [] as number[]);
    const calls: Record<string, number>[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const [k, kind] of kinds.entries()) {
        const counted = countingFs();
        const ctx = createStorageContext({ root, fs: counted.fs });
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        const items = await listStored(ctx, kind.filter);
        wall[k]!.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpu[k]!.push((c.user + c.system) / 1000);
        if (JSON.stringify(items) !== JSON.stringify(page)) throw new Error(`${kind.name}: not the first page's items`);
        calls[k] = counted.calls;
      }
    }
    console.log(`## the tree's first rows at ${SESSIONS} sessions, median of ${ROUNDS} interleaved rounds\n`);
    table(
      ["first rows from", "wall", "CPU", "CPU × remembered", "fs calls"],
      kinds.map((kind, k) => [
        kind.name,
        `${fmt(median(wall[k]!), 1)} ms`,
        `${fmt(median(cpu[k]!), 1)} ms`,
        fmt(median(cpu[k]!) / median(cpu[1]!), 1),
        JSON.stringify(calls[k]),
      ]),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
void main();
