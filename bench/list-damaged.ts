// What "lists show only real sessions" (issue 21) costs an in-process list of N sessions:
// the plain list (meta.json trusted), the tree's list (verifyLogs: one existence check per
// session, damaged folders reported to onDamaged), and the same with 1 % damaged folders.
// Interleaved rounds, medians; fs calls counted through the seam.
//   node --import tsx bench/list-damaged.ts [sessions=10000] [rounds=15]
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStorageContext } from "../core/storage/context";
import { listStored } from "../core/storage/list/list";
import { Sessions } from "../core/storage";
import { countingFs } from "./counting-fs";
import { fmt, median, table, timeMsAsync } from "./stats";

const SESSIONS = Number(process.argv[2] ?? 10_000);
const ROUNDS = Number(process.argv[3] ?? 15);

async function seed(root: string, damaged: number): Promise<void> {
  const sessions = new Sessions({ root });
  const template = sessions.create({ agentId: "code", id: "session-template" });
  template.append("user/message", { content: [{ type: "text", text: "Explain the build." }] }, { surface: "append" });
  await sessions.close();
  const area = join(root, ".downcity", "agents", "code", "sessions");
  const from = join(area, "session-template");
  const meta = readFileSync(join(from, "meta.json"), "utf8");
  const log = readFileSync(join(from, "messages", "active.jsonl"));
  rmSync(from, { recursive: true });
  for (let i = 0; i < SESSIONS; i++) {
    const id = `session-${String(i).padStart(8, "0")}`;
    mkdirSync(join(area, id, "messages"), { recursive: true });
    writeFileSync(join(area, id, "meta.json"), meta.replace('"session-template"', JSON.stringify(id)));
    // The last `damaged` folders: a meta.json whose log is gone, or a stray folder.
    if (i < SESSIONS - damaged) writeFileSync(join(area, id, "messages", "active.jsonl"), log);
    else if (i % 2 === 0) rmSync(join(area, id, "meta.json"));
  }
}

async function main() {
  const roots = {
    healthy: mkdtempSync(join(tmpdir(), "downcity-listdmg-")),
    damaged: mkdtempSync(join(tmpdir(), "downcity-listdmg-")),
  };
  try {
    await seed(roots.healthy, 0);
    await seed(roots.damaged, SESSIONS / 100);
    const kinds = [
      { name: "plain list (meta.json trusted)", root: roots.healthy, filter: {} },
      { name: "tree's list (verifyLogs + onDamaged)", root: roots.healthy, filter: { verifyLogs: true } },
      { name: "tree's list, 1 % damaged folders", root: roots.damaged, filter: { verifyLogs: true } },
    ];
    const ms = kinds.map(() => [] as number[]);
    const found: { items: number; damaged: number; calls: Record<string, number> }[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const [k, kind] of kinds.entries()) {
        const { fs, calls } = countingFs();
        const ctx = createStorageContext({ root: kind.root, fs });
        let damaged = 0;
        let items = 0;
        ms[k]!.push(
          await timeMsAsync(
            async () => (items = (await listStored(ctx, { ...kind.filter, onDamaged: () => damaged++ })).length),
          ),
        );
        found[k] = { items, damaged, calls };
      }
    }
    const base = median(ms[0]!);
    console.log(`## list of ${SESSIONS} sessions, median of ${ROUNDS} interleaved rounds\n`);
    table(
      ["list", "median", "× plain", "listed", "damaged", "fs calls"],
      kinds.map((kind, k) => [
        kind.name,
        `${fmt(median(ms[k]!), 1)} ms`,
        fmt(median(ms[k]!) / base),
        found[k]!.items,
        found[k]!.damaged,
        JSON.stringify(found[k]!.calls),
      ]),
    );
  } finally {
    for (const root of Object.values(roots)) rmSync(root, { recursive: true, force: true });
  }
}
void main();
